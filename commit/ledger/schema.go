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
const SchemaVersion = 3

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

// schemaV3 adds the compensation states and each entry's compensation
// (canonical JSON, "" for none) to version 2. SQLite cannot change a
// CHECK constraint in place, so the entries table is rebuilt, rows
// copied unchanged (foreign keys are off while it runs; see migrate).
const schemaV3 = `
CREATE TABLE entries_v3 (
	id             TEXT    NOT NULL PRIMARY KEY,
	key            TEXT    NOT NULL UNIQUE,
	run_id         TEXT    NOT NULL,
	branch_id      TEXT    NOT NULL,
	plan_digest    TEXT    NOT NULL,
	site           TEXT    NOT NULL,
	flow           TEXT    NOT NULL,
	payload        TEXT    NOT NULL,
	payload_sha256 TEXT    NOT NULL,
	state          TEXT    NOT NULL CHECK (state IN ('intent', 'committed', 'aborted', 'failed',
	                                                 'compensating', 'compensated', 'compensation_failed')),
	attempts       INTEGER NOT NULL CHECK (attempts >= 0),
	order_id       TEXT    NOT NULL,
	confirmation   TEXT,
	artifacts      TEXT    NOT NULL,
	error          TEXT    NOT NULL,
	created_at     TEXT    NOT NULL,
	updated_at     TEXT    NOT NULL,
	anchor         TEXT    NOT NULL DEFAULT '',
	compensation   TEXT    NOT NULL DEFAULT ''
) STRICT;
INSERT INTO entries_v3 SELECT id, key, run_id, branch_id, plan_digest, site, flow, payload, payload_sha256,
	state, attempts, order_id, confirmation, artifacts, error, created_at, updated_at, anchor, '' FROM entries;
DROP TABLE entries;
ALTER TABLE entries_v3 RENAME TO entries;
CREATE INDEX entries_by_created ON entries (created_at, id);
CREATE INDEX entries_by_state ON entries (state, created_at, id);
CREATE INDEX entries_by_run ON entries (run_id, created_at, id);
`

// migrate creates the schema in an empty file, brings a version 1 or 2
// file to version 3, and refuses unknown versions.
// It runs under BEGIN IMMEDIATE so two processes opening a fresh file at
// once create the schema exactly once, on one connection with foreign keys
// off (a rebuilt table is dropped while transitions refer to it), and
// checks the foreign keys before it commits.
func migrate(ctx context.Context, db *sql.DB, path string) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("ledger: open %s: %w", path, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA foreign_keys = OFF"); err != nil {
		return fmt.Errorf("ledger: open %s: %w", path, err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA foreign_keys = ON")
	tx, err := conn.BeginTx(ctx, nil)
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
	steps := []struct {
		from int
		sql  string
	}{{0, schemaV1}, {1, schemaV2}, {2, schemaV3}}
	for _, st := range steps {
		if version > st.from {
			continue
		}
		if _, err := tx.ExecContext(ctx, st.sql); err != nil {
			return fmt.Errorf("ledger: open %s: migrate from schema version %d: %w", path, st.from, err)
		}
	}
	var orphans int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM pragma_foreign_key_check").Scan(&orphans); err != nil {
		return fmt.Errorf("ledger: open %s: check foreign keys: %w", path, err)
	}
	if orphans > 0 {
		return fmt.Errorf("ledger: open %s: %d transitions refer to no entry after migrating", path, orphans)
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
	switch version {
	case 1:
		return entrySelectV1, nil
	case 2:
		return entrySelectV2, nil
	}
	return entrySelect, nil
}
