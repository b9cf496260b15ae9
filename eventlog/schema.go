package eventlog

import (
	"context"
	"database/sql"
	"fmt"
)

// schemaVersion is the PRAGMA user_version this build writes and reads.
// Version 0 means a fresh file.
const schemaVersion = 1

// schemaV1 creates the tables of schema version 1.
//
// events holds the chain. runs is a per-run summary maintained in the same
// transaction as every append: it makes listing runs cheap and lets Verify
// notice a chain whose tail was removed.
const schemaV1 = `
CREATE TABLE IF NOT EXISTS events (
	run_id          TEXT    NOT NULL,
	seq             INTEGER NOT NULL CHECK (seq >= 1),
	time            TEXT    NOT NULL,
	virtual_time_ms INTEGER NOT NULL DEFAULT 0,
	kind            TEXT    NOT NULL,
	branch_id       TEXT    NOT NULL DEFAULT '',
	trace_id        TEXT    NOT NULL DEFAULT '',
	span_id         TEXT    NOT NULL DEFAULT '',
	parent_span_id  TEXT    NOT NULL DEFAULT '',
	payload         TEXT,
	artifacts       TEXT,
	prev_hash       TEXT    NOT NULL,
	hash            TEXT    NOT NULL,
	PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS events_by_branch ON events (run_id, branch_id, seq);
CREATE TABLE IF NOT EXISTS runs (
	run_id     TEXT    NOT NULL PRIMARY KEY,
	first_time TEXT    NOT NULL,
	first_key  TEXT    NOT NULL,
	last_time  TEXT    NOT NULL,
	last_kind  TEXT    NOT NULL,
	head_seq   INTEGER NOT NULL,
	head_hash  TEXT    NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS runs_by_start ON runs (first_key DESC, run_id DESC);
`

// migrate brings the database at path to schemaVersion inside one IMMEDIATE
// transaction, so concurrent openers do not race. It refuses a newer
// version without touching the file.
func migrate(ctx context.Context, db *sql.DB, path string) error {
	tx, err := db.BeginTx(ctx, nil) // BEGIN IMMEDIATE via _txlock
	if err != nil {
		return fmt.Errorf("eventlog: open %s: begin: %w", path, err)
	}
	defer tx.Rollback()
	var v int64
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return fmt.Errorf("eventlog: open %s: read schema version: %w", path, err)
	}
	switch {
	case v > schemaVersion || v < 0:
		return &SchemaVersionError{Path: path, Found: v, Supported: schemaVersion}
	case v == schemaVersion:
		return nil
	}
	if _, err := tx.ExecContext(ctx, schemaV1); err != nil {
		return fmt.Errorf("eventlog: open %s: create schema: %w", path, err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", schemaVersion)); err != nil {
		return fmt.Errorf("eventlog: open %s: set schema version: %w", path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("eventlog: open %s: commit schema: %w", path, err)
	}
	return nil
}
