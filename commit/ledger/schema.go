package ledger

import (
	"context"
	"database/sql"
	"fmt"
)

// SchemaVersion is the ledger schema version this build writes, stored in
// PRAGMA user_version. Open refuses files with a higher version and
// migrates older ones; OpenReadOnly reads versions 1 and up without
// migrating.
const SchemaVersion = 2

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

// schemaV2 adds each entry's event-log anchor (canonical JSON, "" for
// none) to version 1.
const schemaV2 = `ALTER TABLE entries ADD COLUMN anchor TEXT NOT NULL DEFAULT '';`

// migrate creates the schema in an empty file, brings a version 1 file to
// version 2, and refuses unknown versions.
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
	if version == 0 {
		if _, err := tx.ExecContext(ctx, schemaV1); err != nil {
			return fmt.Errorf("ledger: open %s: create schema: %w", path, err)
		}
	}
	if _, err := tx.ExecContext(ctx, schemaV2); err != nil {
		return fmt.Errorf("ledger: open %s: migrate to schema version 2: %w", path, err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion)); err != nil {
		return fmt.Errorf("ledger: open %s: set schema version: %w", path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("ledger: open %s: commit schema: %w", path, err)
	}
	return nil
}

// checkSchema accepts, without changing it, a file at a schema version this
// build reads, and returns its entries query.
func checkSchema(ctx context.Context, db *sql.DB, path string) (string, error) {
	var version int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return "", fmt.Errorf("ledger: open %s: read schema version: %w", path, err)
	}
	switch {
	case version > SchemaVersion || version < 0:
		return "", fmt.Errorf("%w: %s has schema version %d, this build supports up to %d", ErrSchemaVersion, path, version, SchemaVersion)
	case version == 0:
		return "", fmt.Errorf("%w: %s has no ledger schema (schema version 0)", ErrNotLedger, path)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('entries', 'transitions')`).Scan(&n); err != nil {
		return "", fmt.Errorf("ledger: open %s: read schema: %w", path, err)
	}
	if n != 2 {
		return "", fmt.Errorf("%w: %s lacks the entries or transitions table", ErrNotLedger, path)
	}
	if version == 1 {
		return entrySelectV1, nil
	}
	return entrySelect, nil
}
