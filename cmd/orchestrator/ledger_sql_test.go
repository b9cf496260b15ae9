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
