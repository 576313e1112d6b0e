// Storage interfaces the domain code depends on. The SQLite implementations live in ./sqlite/;
// a PostgreSQL backend implements the same interfaces without touching the domain.
// Each domain adds its repository interface here (one small interface per entity).
import type { User } from '../model/user.ts';

export interface UserRepository {
  create(username: string, passwordHash: string, email?: string | null): User;
  findByName(username: string): (User & { passwordHash: string }) | undefined;
  findById(id: number): User | undefined;
  list(): User[];
  setPasswordHash(id: number, passwordHash: string): void;
  delete(id: number): boolean;
}
