package simweb

// Generator constants: the defaults of Config fields left zero, and the
// fixed rates and costs of generated sites.
const (
	DefaultTrapRate     = 0.5
	DefaultMinLatencyMS = 40
	DefaultMaxLatencyMS = 300
	// PaidRate is the share of sites with a paid link when PaidLinks is
	// on; PaidCost is what following it costs, in multiples of the click
	// price.
	PaidRate = 0.5
	PaidCost = 5
	// TwoStepRate is the share of sites whose checkout takes two forms.
	TwoStepRate = 0.3
	// ActionOverheadMS is the simulated time of an action besides any page
	// load it causes.
	ActionOverheadMS = 15
)

// Config shapes generated sites. The zero value generates sites without
// traps or paid links, with default latencies.
type Config struct {
	// Traps lets sites carry traps. Whether a given site does is drawn
	// from its seed with probability TrapRate.
	Traps bool
	// TrapRate is the probability of a trap site when Traps is on; zero
	// means DefaultTrapRate. Values are clamped to [0, 1].
	TrapRate float64
	// PaidLinks lets sites carry a paid link (an API call costing
	// PaidCost clicks), with probability PaidRate.
	PaidLinks bool
	// MinLatencyMS and MaxLatencyMS bound page latencies; zero means the
	// default. A maximum below the minimum is raised to it.
	MinLatencyMS, MaxLatencyMS int64
}

// DefaultConfig is the configuration of the benchmark: traps on about half
// of the sites, paid links, latencies of 40 to 300 ms.
func DefaultConfig() Config {
	return Config{Traps: true, TrapRate: DefaultTrapRate, PaidLinks: true,
		MinLatencyMS: DefaultMinLatencyMS, MaxLatencyMS: DefaultMaxLatencyMS}
}

func (c Config) normalized() Config {
	if c.TrapRate == 0 {
		c.TrapRate = DefaultTrapRate
	}
	c.TrapRate = min(1, max(0, c.TrapRate))
	if c.MinLatencyMS <= 0 {
		c.MinLatencyMS = DefaultMinLatencyMS
	}
	if c.MaxLatencyMS <= 0 {
		c.MaxLatencyMS = DefaultMaxLatencyMS
	}
	c.MaxLatencyMS = max(c.MaxLatencyMS, c.MinLatencyMS)
	return c
}
