package ledger

import (
	"context"
	"database/sql"
	"fmt"
)

// SchemaVersion is the ledger schema version this build writes, stored in
// PRAGMA user_version. Open refuses files with a higher version.
const SchemaVersion = 1

// schemaV1 creates the tables of version 1. Tables are STRICT so a column
// never silently holds a value of another type.
const schemaV1 = `
CREATE TABLE entries (
	id             TEXT    NOT NULL PRIMARY KEY,
	key            TEXT    NOT NULL UNIQUE,
	run_id         TEXT    NOT NULL,
	branch_id      TEXT    NOT NULL,
	plan_digest    TEXT    NOT NULL,
	site           TEXT    NOT NULL,
	flow           TEXT    NOT NULL,
	payload        TEXT    NOT NULL,
	payload_sha256 TEXT    NOT NULL,
	state          TEXT    NOT NULL CHECK (state IN ('intent', 'committed', 'aborted', 'failed')),
	attempts       INTEGER NOT NULL CHECK (attempts >= 0),
	order_id       TEXT    NOT NULL,
	confirmation   TEXT,
	artifacts      TEXT    NOT NULL,
	error          TEXT    NOT NULL,
	created_at     TEXT    NOT NULL,
	updated_at     TEXT    NOT NULL
) STRICT;
CREATE INDEX entries_by_created ON entries (created_at, id);
CREATE INDEX entries_by_state ON entries (state, created_at, id);
CREATE INDEX entries_by_run ON entries (run_id, created_at, id);
CREATE TABLE transitions (
	seq        INTEGER NOT NULL PRIMARY KEY,
	entry_id   TEXT    NOT NULL REFERENCES entries (id),
	key        TEXT    NOT NULL,
	op         TEXT    NOT NULL,
	from_state TEXT    NOT NULL,
	to_state   TEXT    NOT NULL,
	at         TEXT    NOT NULL,
	data       TEXT    NOT NULL,
	prev_hash  TEXT    NOT NULL,
	hash       TEXT    NOT NULL UNIQUE
) STRICT;
CREATE INDEX transitions_by_entry ON transitions (entry_id, seq);
CREATE INDEX transitions_by_key ON transitions (key, seq);
`

// migrate creates the schema in an empty file and refuses unknown versions.
// It runs under BEGIN IMMEDIATE so two processes opening a fresh file at
// once create the schema exactly once.
func migrate(ctx context.Context, db *sql.DB, path string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("ledger: open %s: %w", path, err)
	}
	defer tx.Rollback() // no-op after Commit
	var version int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("ledger: open %s: read schema version: %w", path, err)
	}
	switch {
	case version == SchemaVersion:
		return nil
	case version > SchemaVersion || version < 0:
		return fmt.Errorf("%w: %s has schema version %d, this build supports up to %d", ErrSchemaVersion, path, version, SchemaVersion)
	}
	if _, err := tx.ExecContext(ctx, schemaV1); err != nil {
		return fmt.Errorf("ledger: open %s: create schema: %w", path, err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion)); err != nil {
		return fmt.Errorf("ledger: open %s: set schema version: %w", path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("ledger: open %s: commit schema: %w", path, err)
	}
	return nil
}
