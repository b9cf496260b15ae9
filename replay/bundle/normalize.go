package bundle

// normalize puts a decoded bundle in the form Write produces: empty
// collections nil (Write omits them) and Created in UTC, so that what Read
// returns is written and read back unchanged.
func normalize(b *Bundle) {
	m := &b.Manifest
	m.Created = m.Created.UTC()
	m.Inputs = nilIfEmptyMap(m.Inputs)
	m.Guard = nilIfEmpty(m.Guard)
	m.Notes = nilIfEmpty(m.Notes)
	if m.Commit != nil {
		m.Commit.Evidence = nilIfEmptyMap(m.Commit.Evidence)
	}
	for i := range b.Steps {
		b.Steps[i].Predicates = nilIfEmptyMap(b.Steps[i].Predicates)
	}
	for i := range b.Network {
		e := &b.Network[i]
		e.RequestHeaders = nilIfEmptyMap(e.RequestHeaders)
		e.ResponseHeaders = nilIfEmptyMap(e.ResponseHeaders)
	}
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

func nilIfEmptyMap[K comparable, V any](m map[K]V) map[K]V {
	if len(m) == 0 {
		return nil
	}
	return m
}
