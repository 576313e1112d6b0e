// Types of ./process-setup.js (plain JavaScript: it runs before the TypeScript sources load).
export declare const DEFAULT_SERVE_NODE_FLAGS: string;
export declare function commandOf(args: readonly string[]): string | undefined;
export declare function serveNodeFlags(env?: NodeJS.ProcessEnv, execArgv?: readonly string[]): string[];
export declare function setUpProcess(argv?: readonly string[], opts?: { serve?: boolean }): void;
