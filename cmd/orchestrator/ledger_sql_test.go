package main

import (
	"database/sql"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

// editLedger changes a committed row's order id behind the ledger's back,
// as a tamperer would.
func editLedger(t *testing.T, path, orderID string) {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.Exec(`UPDATE entries SET order_id = 'ORD-999999' WHERE order_id = ?`, orderID)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("edited %d rows", n)
	}
}

// execSQL runs a statement on a store file behind its package's back.
func execSQL(t *testing.T, path, q string, args ...any) {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}
