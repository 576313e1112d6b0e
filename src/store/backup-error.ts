// Kept in its own module so the CLI can recognise the error without loading a backend.
export class BackupFileError extends Error {}
