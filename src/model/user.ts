export interface User {
  id: number;
  username: string;
  email: string | null;
  createdAt: number;
}
