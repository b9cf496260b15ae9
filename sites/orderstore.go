package sites

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// ErrOrdersFile is wrapped by errors loading or writing
// [VendorOptions].OrdersFile.
var ErrOrdersFile = errors.New("sites: orders file")

// Idempotency outcomes of orderStore.claim.
var (
	errKeyInProgress = errors.New("sites: idempotency key in progress")
	errKeyReused     = errors.New("sites: idempotency key reused with a different payload")
)

const (
	orderIDPrefix   = "ORD-"
	firstOrderNum   = 100001
	ordersFileVer   = 1
	orderCurrency   = "USD"
	ordersFilePerms = 0o644
)

// ordersDoc is the on-disk format of the orders file.
type ordersDoc struct {
	Version int     `json:"version"`
	Orders  []Order `json:"orders"`
}

// orderStore holds orders in creation order, the idempotency index and the
// per-key in-progress markers. Safe for concurrent use.
type orderStore struct {
	path string // "" keeps orders in memory only

	mu       sync.Mutex
	orders   []Order
	byID     map[string]int
	byKey    map[string]int
	inFlight map[string]struct{}
	nextNum  int64
	nextSeq  int64
}

// openOrderStore loads path if set and the file exists. It creates the parent
// directory so the first write can succeed; a file that cannot be parsed or
// holds inconsistent orders is an error wrapping ErrOrdersFile.
func openOrderStore(path string) (*orderStore, error) {
	s := &orderStore{
		path: path, byID: map[string]int{}, byKey: map[string]int{},
		inFlight: map[string]struct{}{}, nextNum: firstOrderNum, nextSeq: 1,
	}
	if path == "" {
		return s, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOrdersFile, err)
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOrdersFile, err)
	}
	var doc ordersDoc
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrOrdersFile, path, err)
	}
	if doc.Version != ordersFileVer {
		return nil, fmt.Errorf("%w: %s: version %d, want %d", ErrOrdersFile, path, doc.Version, ordersFileVer)
	}
	orders := slices.Clone(doc.Orders)
	slices.SortStableFunc(orders, func(a, b Order) int {
		switch {
		case a.Created < b.Created:
			return -1
		case a.Created > b.Created:
			return 1
		}
		return 0
	})
	for _, o := range orders {
		if err := s.index(o); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrOrdersFile, path, err)
		}
	}
	return s, nil
}

// index appends a loaded order, checking ids, sequence and keys.
func (s *orderStore) index(o Order) error {
	n, ok := orderNumber(o.ID)
	if !ok {
		return fmt.Errorf("order id %q is not ORD-<number>", o.ID)
	}
	if _, dup := s.byID[o.ID]; dup {
		return fmt.Errorf("duplicate order id %s", o.ID)
	}
	if o.Created <= 0 {
		return fmt.Errorf("order %s: created %d is not a positive sequence number", o.ID, o.Created)
	}
	if o.CancelReference != "" && !o.Cancelled {
		return fmt.Errorf("order %s: cancel reference %q on an active order", o.ID, o.CancelReference)
	}
	if o.ClientReference != "" {
		if _, dup := s.byKey[o.ClientReference]; dup {
			return fmt.Errorf("order %s: client reference %q already used", o.ID, o.ClientReference)
		}
		s.byKey[o.ClientReference] = len(s.orders)
	}
	s.byID[o.ID] = len(s.orders)
	s.orders = append(s.orders, o)
	s.nextNum = max(s.nextNum, n+1)
	s.nextSeq = max(s.nextSeq, o.Created+1)
	return nil
}

// orderNumber parses "ORD-100001".
func orderNumber(id string) (int64, bool) {
	digits, ok := strings.CutPrefix(id, orderIDPrefix)
	if !ok || digits == "" || digits[0] == '0' || len(digits) > 18 {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	return n, err == nil
}

// claim looks key up. If an order exists for key with the same payload hash
// it is returned with replay true. If it exists with another hash, claim
// returns errKeyReused; if the key's first request is in progress,
// errKeyInProgress. Otherwise the caller now holds the key's in-progress
// marker and must call release.
func (s *orderStore) claim(key, hash string) (o Order, replay bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, busy := s.inFlight[key]; busy {
		return Order{}, false, errKeyInProgress
	}
	if i, ok := s.byKey[key]; ok {
		if s.orders[i].PayloadSHA256 != hash {
			return s.orders[i], false, errKeyReused
		}
		return s.orders[i], true, nil
	}
	s.inFlight[key] = struct{}{}
	return Order{}, false, nil
}

// release drops the in-progress marker of key.
func (s *orderStore) release(key string) {
	s.mu.Lock()
	delete(s.inFlight, key)
	s.mu.Unlock()
}

// create assigns o the next id and sequence number, persists the store and
// returns the stored order. On a persistence error nothing is kept.
func (s *orderStore) create(o Order) (Order, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o.ID = orderIDPrefix + strconv.FormatInt(s.nextNum, 10)
	o.Created = s.nextSeq
	o.Currency = orderCurrency
	s.orders = append(s.orders, o)
	if err := s.persistLocked(); err != nil {
		s.orders = s.orders[:len(s.orders)-1]
		return Order{}, err
	}
	s.byID[o.ID] = len(s.orders) - 1
	if o.ClientReference != "" {
		s.byKey[o.ClientReference] = len(s.orders) - 1
	}
	s.nextNum++
	s.nextSeq++
	return o, nil
}

// cancel marks the order id cancelled, with key as its CancelReference, and
// persists the store. found is false for an unknown id. changed is false when
// the order was already cancelled: nothing is modified or written, and the
// returned order carries the first cancellation's reference. On a
// persistence error the order stays active.
func (s *orderStore) cancel(id, key string) (o Order, found, changed bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.byID[id]
	if !ok {
		return Order{}, false, false, nil
	}
	if s.orders[i].Cancelled {
		return s.orders[i], true, false, nil
	}
	before := s.orders[i]
	s.orders[i].Cancelled, s.orders[i].CancelReference = true, key
	if err := s.persistLocked(); err != nil {
		s.orders[i] = before
		return before, true, false, err
	}
	return s.orders[i], true, true, nil
}

// cancelled returns how many orders are cancelled.
func (s *orderStore) cancelled() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, o := range s.orders {
		if o.Cancelled {
			n++
		}
	}
	return n
}

// persistLocked writes all orders to a temporary file next to path, syncs it
// and renames it over path. s.mu must be held.
func (s *orderStore) persistLocked() error {
	if s.path == "" {
		return nil
	}
	data, err := json.MarshalIndent(ordersDoc{Version: ordersFileVer, Orders: s.orders}, "", "  ")
	if err != nil {
		return fmt.Errorf("%w: encode: %w", ErrOrdersFile, err)
	}
	data = append(data, '\n')
	dir := filepath.Dir(s.path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(s.path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrOrdersFile, err)
	}
	name := tmp.Name()
	fail := func(err error) error {
		_ = tmp.Close()
		_ = os.Remove(name)
		return fmt.Errorf("%w: write %s: %w", ErrOrdersFile, s.path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(ordersFilePerms); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(name)
		return fmt.Errorf("%w: write %s: %w", ErrOrdersFile, s.path, err)
	}
	if err := os.Rename(name, s.path); err != nil {
		_ = os.Remove(name)
		return fmt.Errorf("%w: rename into %s: %w", ErrOrdersFile, s.path, err)
	}
	// Make the rename durable; a failure here only weakens crash safety.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// list returns a copy of all orders in creation order.
func (s *orderStore) list() []Order {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.orders)
}

// get returns the order with id.
func (s *orderStore) get(id string) (Order, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.byID[id]
	if !ok {
		return Order{}, false
	}
	return s.orders[i], true
}

// withReference returns the orders created with key, in creation order.
func (s *orderStore) withReference(key string) []Order {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Order{}
	if i, ok := s.byKey[key]; ok {
		out = append(out, s.orders[i])
	}
	return out
}
