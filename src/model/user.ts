export interface User {
  id: number;
  username: string;
  email: string | null;
  createdAt: number;
  /** The operator's account(s): their API keys get the beta features without approval. */
  isAdmin: boolean;
}
