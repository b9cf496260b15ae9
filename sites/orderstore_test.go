package sites

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOrdersFilePersistence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "orders.json")
	v1, err := NewVendor(VendorOptions{OrdersFile: path})
	if err != nil {
		t.Fatal(err)
	}
	requireStatus(t, do(t, v1, call{method: "POST", target: "/api/orders", json: orderJSONBody, header: map[string]string{"Idempotency-Key": "persist"}}), 201)
	requireStatus(t, do(t, v1, call{method: "POST", target: "/api/orders", json: orderJSONBody}), 201)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("orders file not written: %v", err)
	}

	// A new vendor (a restart) sees the orders, replays the key and continues
	// the id and sequence.
	v2, err := NewVendor(VendorOptions{OrdersFile: path})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v2.Orders(), v1.Orders(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("reloaded orders = %+v, want %+v", got, want)
	}
	replay := do(t, v2, call{method: "POST", target: "/api/orders", json: orderJSONBody, header: map[string]string{"Idempotency-Key": "persist"}})
	requireStatus(t, replay, 200)
	requireContains(t, replay.Body.String(), `"id": "ORD-100001"`)
	next := do(t, v2, call{method: "POST", target: "/api/orders", json: orderJSONBody})
	requireStatus(t, next, 201)
	if o := decodeOrder(t, next.Body.String()); o.ID != "ORD-100003" || o.Created != 3 {
		t.Fatalf("next order = %s #%d, want ORD-100003 #3", o.ID, o.Created)
	}
	requireStatus(t, get(t, v2, "/orders/ORD-100002/invoice.pdf"), 200)

	// No temporary files are left behind.
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want only orders.json", len(entries))
	}
}

func TestOrdersFileContinuesAfterHighestID(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "orders-gap.json"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "orders.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := NewVendor(VendorOptions{OrdersFile: path})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Orders(); got[0].ID != "ORD-100003" || got[1].ID != "ORD-100007" {
		t.Fatalf("orders not in creation order: %s, %s", got[0].ID, got[1].ID)
	}
	rec := do(t, v, call{method: "POST", target: "/api/orders", json: orderJSONBody})
	if o := decodeOrder(t, rec.Body.String()); o.ID != "ORD-100008" || o.Created != 3 {
		t.Fatalf("next = %s #%d", o.ID, o.Created)
	}
}

// Each testdata/bad-*.json must be refused with ErrOrdersFile and a message
// naming the problem.
func TestOrdersFileBad(t *testing.T) {
	want := map[string]string{
		"bad-empty.json":            "EOF",
		"bad-not-json.json":         "invalid character",
		"bad-version.json":          "version 2",
		"bad-unknown-field.json":    "unknown field",
		"bad-id.json":               "not ORD-<number>",
		"bad-id-leading-zero.json":  "not ORD-<number>",
		"bad-duplicate-id.json":     "duplicate order id",
		"bad-duplicate-key.json":    "already used",
		"bad-created.json":          "positive sequence",
		"bad-cancel-reference.json": "cancel reference \"undo\" on an active order",
	}
	files, err := filepath.Glob(filepath.Join("testdata", "bad-*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(want) {
		t.Fatalf("found %d bad fixtures, the table has %d", len(files), len(want))
	}
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			msg, ok := want[name]
			if !ok {
				t.Fatalf("no expectation for %s", name)
			}
			_, err := NewVendor(VendorOptions{OrdersFile: file})
			if !errors.Is(err, ErrOrdersFile) || !strings.Contains(err.Error(), msg) {
				t.Fatalf("err = %v, want ErrOrdersFile containing %q", err, msg)
			}
		})
	}
}

// A failed write rolls the order back: no order, no id consumed.
func TestOrdersFileWriteFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "orders.json")
	v, err := NewVendor(VendorOptions{OrdersFile: path})
	if err != nil {
		t.Fatal(err)
	}
	// A non-empty directory where the file should go makes the rename fail,
	// even for root.
	if err := os.MkdirAll(filepath.Join(path, "blocker"), 0o755); err != nil {
		t.Fatal(err)
	}
	requireStatus(t, do(t, v, call{method: "POST", target: "/api/orders", json: orderJSONBody, header: map[string]string{"Idempotency-Key": "w"}}), 500)
	if len(v.Orders()) != 0 {
		t.Fatal("failed write kept the order")
	}
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	rec := do(t, v, call{method: "POST", target: "/api/orders", json: orderJSONBody, header: map[string]string{"Idempotency-Key": "w"}})
	requireStatus(t, rec, 201)
	requireContains(t, rec.Body.String(), `"id": "ORD-100001"`)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %d entries", len(entries))
	}
}
