package deck

import (
	"errors"
	"math"
	"time"

	"anchorage/impl/fe"
	"anchorage/sim/clock"
)

// ClockHz is the part's clock rate.
const ClockHz = 150_000_000

// DefaultCPI is the research note's cycles-per-instruction default.
const DefaultCPI = 1.4

// DefaultWatchdog is the cycle budget of one evaluation: 200 ms of the part.
const DefaultWatchdog = 30_000_000

// Thumb-2 instruction costs of the interpreter events (fe-deck.md §3.3),
// in thousandths of an instruction so that fractional fits stay exact.
func eventMilliInstr() [fe.NumEvents]uint64 {
	return [fe.NumEvents]uint64{
		fe.EvPair:   38_000,
		fe.EvArg:    38_500,
		fe.EvLookup: 6_400,
		fe.EvCall:   80_000,
		fe.EvAtom:   8_000,
		fe.EvAlloc:  17_000,
		fe.EvMark:   15_000,
		fe.EvSweep:  15_000,
	}
}

// Costs of the reader and printer, which the VM does not report as events
// (fe-deck.md §3.3), and of opening a VM, in instructions.
const (
	instrSymbolToken = 580
	instrNumberToken = 580 + 370
	instrPrintNumber = 3200
	instrPrintChar   = 70
	instrOpenVM      = 34_000
)

// ErrWatchdog is the cause of an evaluation stopped by the watchdog.
var ErrWatchdog = errors.New("watchdog: cycle budget exceeded")

// CPU counts simulated cycles and drives the simulated clock. The VMs it
// is attached to price their events through its fe.Meter, which they
// update directly (no call per event).
type CPU struct {
	// meter.Costs are the milli-cycles per event, meter.Total the
	// milli-cycles since power on, and meter.Limit start+budget while an
	// evaluation with a budget is running (the maximum otherwise), so that
	// Total > Limit is exactly "total-start > budget".
	meter    fe.Meter
	perInstr uint64 // milli-cycles per instruction: the CPI to a thousandth
	clk      *clock.Sim
	advanced uint64 // whole cycles already pushed into the clock
	start    uint64 // milli-cycles at the start of the current evaluation
}

// NewCPU returns a CPU with the given CPI (DefaultCPI if ≤ 0), taken to a
// thousandth, driving clk.
func NewCPU(cpi float64, clk *clock.Sim) *CPU {
	if cpi <= 0 {
		cpi = DefaultCPI
	}
	c := &CPU{perInstr: uint64(math.Round(cpi * 1000)), clk: clk}
	c.meter.Limit = math.MaxUint64
	c.meter.Err = ErrWatchdog
	for i, m := range eventMilliInstr() {
		c.meter.Costs[i] = m * c.perInstr / 1000
	}
	return c
}

// Meter returns the meter the VMs price their events with.
func (c *CPU) Meter() *fe.Meter { return &c.meter }

// Instr charges n instructions of work the VM does not report.
func (c *CPU) Instr(n uint64) { c.meter.Total += n * c.perInstr }

// Begin starts an evaluation with a watchdog budget in cycles.
func (c *CPU) Begin(budget uint64) {
	c.start = c.meter.Total
	c.meter.Limit = c.start + budget*1000
}

// End finishes an evaluation, returns its cycles and advances the clock.
func (c *CPU) End() uint64 {
	c.meter.Limit = math.MaxUint64
	n := (c.meter.Total - c.start) / 1000
	c.Sync()
	return n
}

// Sync advances the simulated clock to the cycles counted so far (the
// count only grows; with nothing new counted the clock moves by 0).
func (c *CPU) Sync() {
	whole := c.meter.Total / 1000
	c.clk.Advance(cyclesToDuration(whole) - cyclesToDuration(c.advanced))
	c.advanced = whole
}

// Cycles returns the cycles since power on.
func (c *CPU) Cycles() uint64 { return c.meter.Total / 1000 }

func cyclesToDuration(n uint64) time.Duration {
	return time.Duration(n/ClockHz*uint64(time.Second) + n%ClockHz*uint64(time.Second)/ClockHz)
}
