// User accounts (src/auth/accounts.ts, the CLI's and the web app's user administration).
import type { Sql } from '../sql.ts';
import type { UserRepository } from '../repositories.ts';
import type { User } from '../../model/user.ts';
import type { AuthRowCache } from './auth-row-cache.ts';

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

// Names are case-insensitive on both, each through its own unique index (migration 001): SQLite's
// column is COLLATE NOCASE, PostgreSQL's index is on lower(username). Each backend gets the
// comparison its index answers (lower() on SQLite would read every user).
const BY_NAME = {
  sqlite: 'SELECT * FROM users WHERE username = ?',
  postgres: 'SELECT * FROM users WHERE lower(username) = lower(?)',
} as const;

export class SqlUserRepository implements UserRepository {
  private readonly s: Sql;
  private readonly authRows: readonly AuthRowCache<unknown>[];
  /** authRows: the token and API key rows cached for authentication, forgotten when a user (and so their rows) goes. */
  constructor(sql: Sql, authRows: readonly AuthRowCache<unknown>[] = []) {
    this.s = sql;
    this.authRows = authRows;
  }

  async create(username: string, passwordHash: string, email: string | null = null): Promise<User> {
    const r = (await this.s
      .prepare('INSERT INTO users (username, email, password_hash, created_at) VALUES (?, ?, ?, ?) RETURNING *')
      .get(username, email, passwordHash, Math.floor(Date.now() / 1000))) as Row;
    return toUser(r);
  }
  async findByName(username: string) {
    const r = (await this.s.prepare(BY_NAME[this.s.dialect]).get(username)) as Row | undefined;
    return r ? { ...toUser(r), passwordHash: r.password_hash } : undefined;
  }
  async findByEmail(email: string) {
    const rows = (await this.s
      .prepare('SELECT * FROM users WHERE lower(email) = lower(?) LIMIT 2')
      .all(email)) as Row[];
    return rows.length === 1 ? { ...toUser(rows[0]!), passwordHash: rows[0]!.password_hash } : undefined;
  }
  async findById(id: number) {
    const r = (await this.s.prepare('SELECT * FROM users WHERE id = ?').get(id)) as Row | undefined;
    return r ? toUser(r) : undefined;
  }
  async list(): Promise<User[]> {
    return ((await this.s.prepare('SELECT * FROM users ORDER BY id').all()) as Row[]).map(toUser);
  }
  async setPasswordHash(id: number, passwordHash: string): Promise<void> {
    await this.s.prepare('UPDATE users SET password_hash = ? WHERE id = ?').run(passwordHash, id);
  }
  async setAdmin(id: number, admin: boolean): Promise<void> {
    await this.s.prepare('UPDATE users SET is_admin = ? WHERE id = ?').run(admin ? 1 : 0, id);
  }
  async delete(id: number): Promise<boolean> {
    try {
      return (await this.s.prepare('DELETE FROM users WHERE id = ?').run(id)).changes > 0;
    } finally {
      for (const c of this.authRows) c.clear();
    }
  }
}
