import type { Db } from './db.ts';
import { StatementCache } from './db.ts';
import type { UserRepository } from '../repositories.ts';
import type { User } from '../../model/user.ts';

interface Row {
  id: number;
  username: string;
  email: string | null;
  created_at: number;
  password_hash: string;
  is_admin: number;
}
const toUser = (r: Row): User => ({
  id: r.id,
  username: r.username,
  email: r.email,
  createdAt: r.created_at,
  isAdmin: r.is_admin === 1,
});

export class SqliteUserRepository implements UserRepository {
  private readonly s: StatementCache;
  constructor(db: Db) {
    this.s = new StatementCache(db);
  }

  async create(username: string, passwordHash: string, email: string | null = null): Promise<User> {
    const now = Math.floor(Date.now() / 1000);
    const r = this.s
      .get('INSERT INTO users (username, email, password_hash, created_at) VALUES (?, ?, ?, ?) RETURNING *')
      .get(username, email, passwordHash, now) as unknown as Row;
    return toUser(r);
  }
  async findByName(username: string) {
    const r = this.s.get('SELECT * FROM users WHERE username = ?').get(username) as Row | undefined;
    return r ? { ...toUser(r), passwordHash: r.password_hash } : undefined;
  }
  async findByEmail(email: string) {
    const rows = this.s.get('SELECT * FROM users WHERE lower(email) = lower(?) LIMIT 2').all(email) as unknown as Row[];
    return rows.length === 1 ? { ...toUser(rows[0]), passwordHash: rows[0].password_hash } : undefined;
  }
  async findById(id: number) {
    const r = this.s.get('SELECT * FROM users WHERE id = ?').get(id) as Row | undefined;
    return r ? toUser(r) : undefined;
  }
  async list(): Promise<User[]> {
    return (this.s.get('SELECT * FROM users ORDER BY id').all() as unknown as Row[]).map(toUser);
  }
  async setPasswordHash(id: number, passwordHash: string): Promise<void> {
    this.s.get('UPDATE users SET password_hash = ? WHERE id = ?').run(passwordHash, id);
  }
  async setAdmin(id: number, admin: boolean): Promise<void> {
    this.s.get('UPDATE users SET is_admin = ? WHERE id = ?').run(admin ? 1 : 0, id);
  }
  async delete(id: number): Promise<boolean> {
    return Number(this.s.get('DELETE FROM users WHERE id = ?').run(id).changes) > 0;
  }
}
