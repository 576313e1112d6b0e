// One schema migration: an id (NNN_domain_what; the number orders the list and gives each helper
// of a session its own range) and its SQL for each backend. A step whose SQL is the same on both
// says so (`postgres: sqlite`); the dialects differ where SQLite and PostgreSQL do (identity
// columns, BLOB/BYTEA, triggers, FTS5). Never edit a migration that has shipped: add a new one.
export interface Migration {
  id: string;
  sqlite: string;
  postgres: string;
}
