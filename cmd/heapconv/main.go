// Command heapconv converts heap snapshots between the Dart VM, MoarVM,
// V8 / Chrome DevTools and Fuchsia heapdump formats through one versioned
// intermediate representation.
//
// Usage:
//
//	heapconv convert [--from F] [--to F|parquet] [--snapshot N|all] [--force] [-q]
//	                 [--loss-report FILE.json] [--contents DIR] [--scan-pointers]
//	                 [--no-gzip] [--out-contents DIR] [--level fast|default|best]
//	                 [--file-id ID] IN OUT
//	heapconv capture [--to F|parquet] [--force] [-q] [--gc] [--count N] [--interval D]
//	                 [--isolate NAME] [--target TEXT] [--port N] [--loss-report FILE.json]
//	                 [--level L] TARGET OUT
//	heapconv info [--json | --csv] [--top N] [--by self|count|retained] [--as F]
//	              [--snapshot N|all] [--from F] [--contents DIR] [--scan-pointers] IN
//	heapconv diff [--json] [--top N] [--by self|count|retained] [--suspects N] [--noise]
//	              [--fail-on-growth REGEX|any] [--retained=false] [--snapshot A,B,...]
//	              [--from F] [--contents DIR] [--scan-pointers] OLD NEW [LATER ...]
//	heapconv paths (--class NAME | --id REF) [--max N] [--json] [--snapshot N]
//	               [--from F] [--contents DIR] [--scan-pointers] IN
//	heapconv report [--title T] [--classes N] [--force] [--from F] [--contents DIR]
//	                [--scan-pointers] IN [IN ...] OUT.html
//	heapconv explore [--addr HOST:PORT] [--open] [--from F] [--contents DIR]
//	                 [--scan-pointers] IN [IN ...]
//	heapconv validate [--from F] IN
//	heapconv roundtrip [--from F] IN
//	heapconv dump [--from F] IN
//	heapconv formats
//	heapconv version
//	heapconv help COMMAND
//
// IN and OUT may be "-" for standard input and output; any IN may be gzip-
// or zstd-compressed, and an OUT ending in .gz or .zst is written so. Data
// goes to standard output, messages to standard error. The exit status is
// 0 on success, 1 on failure, 2 on a usage error, 3 when diff
// --fail-on-growth finds a class that grew in every step, and 130 or 143
// when interrupted by SIGINT or SIGTERM (after removing the output being
// written).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir"
)

// usageError marks errors in how the command was called (exit status 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

type command struct {
	name    string
	summary string
	usage   string
	run     func(env *env, args []string) error
}

var commands []*command

func init() {
	commands = []*command{
		{"convert", "convert a snapshot to another format", convertUsage, runConvert},
		{"capture", "take a heap snapshot of a running Node, Chrome or Dart VM", captureUsage, runCapture},
		{"info", "summarize a snapshot", infoUsage, runInfo},
		{"diff", "compare snapshots: leak suspects, classes that grew, new and leaked objects", diffUsage, runDiff},
		{"paths", "show what keeps objects alive: retainer paths and dominators", pathsUsage, runPaths},
		{"report", "write a heap's classes, treemap, retainers and growth as one HTML page", reportUsage, runReport},
		{"explore", "look around heaps in the browser: classes, objects, retainers, dominators", exploreUsage, runExplore},
		{"validate", "check a snapshot against what its consumers require", validateUsage, runValidate},
		{"roundtrip", "read a file and write it again in its own format; report any difference", roundtripUsage, runRoundtrip},
		{"dump", "print the intermediate representation as text", dumpUsage, runDump},
		{"formats", "list the formats and what heapconv can do with each", formatsUsage, runFormats},
		{"version", "print heapconv's version", versionUsage, runVersion},
	}
}

const mainUsage = `heapconv translates VM heap snapshots between formats.

Usage:
  heapconv <command> [flags] [arguments]

Commands:
%s
Run "heapconv help <command>" or "heapconv <command> --help" for a
command's flags and examples; "heapconv --version" for the version.

Any IN may be gzip- or zstd-compressed; an OUT named .gz or .zst is
written compressed.

Examples:
  heapconv convert app.heapsnapshot app.heapir.zst
  heapconv convert --snapshot 0 rakudo.mvmheap.gz rakudo.heapsnapshot
  heapconv capture pid:12345 server.heapsnapshot
  heapconv capture http://127.0.0.1:8181/AbCd1234=/ flutter.heapsnapshot
  heapconv info --json app.heapsnapshot
  heapconv diff before.heapsnapshot after.heapsnapshot later.heapsnapshot
  heapconv paths --class LeakedThing app.heapsnapshot
  heapconv report app.heapsnapshot app.html
  heapconv roundtrip Heap-20260101-120000.heapsnapshot
`

// env is the process's streams, so tests can run commands in-process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// stderrTerminal enables the progress bar; progressShown is set while
	// one is drawn.
	stderrTerminal bool
	progressShown  bool
}

func main() {
	// Snapshots are a few huge pointer-free arrays: collecting often costs
	// little and keeps peak memory near the live size (on a 1 GB snapshot,
	// 10 rather than 25 took 40 to 50 MB off the peak of a conversion and
	// nothing measurable off its time).
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(10)
	}
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, stderrTerminal: isTerminal(os.Stderr)}
	onSignals(e)
	os.Exit(run(e, os.Args[1:]))
}

// onSignals makes SIGINT, SIGTERM and SIGHUP (a closed terminal) remove
// the outputs being written and end the process with 128 + the signal's
// number, as a shell reports it. A signal the process was started with
// ignored (nohup, a background job) stays ignored.
func onSignals(e *env) {
	c := make(chan os.Signal, 1)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		if !signal.Ignored(sig) {
			signal.Notify(c, sig)
		}
	}
	go func() {
		sig := (<-c).(syscall.Signal)
		heapconv.RemoveTemporaryFiles()
		runAtSignal()
		if e.stderrTerminal {
			fmt.Fprint(e.stderr, "\r\033[K") // the progress bar
		}
		os.Exit(128 + int(sig))
	}()
}

// atSignal holds what a command asks to be done if a signal ends the
// process (explore's page for the browser removed).
var atSignal struct {
	sync.Mutex
	fns []func()
}

// onSignal has fn run if a signal ends the process.
func onSignal(fn func()) {
	atSignal.Lock()
	defer atSignal.Unlock()
	atSignal.fns = append(atSignal.fns, fn)
}

func runAtSignal() {
	atSignal.Lock()
	defer atSignal.Unlock()
	for _, fn := range atSignal.fns {
		fn()
	}
}

// run executes one command line and returns the exit status.
func run(e *env, args []string) int {
	if len(args) >= 1 && args[0] == "--version" {
		return run(e, append([]string{"version"}, args[1:]...))
	}
	if len(args) >= 2 && args[0] == "help" {
		if len(args) > 2 {
			fmt.Fprintf(e.stderr, "heapconv help: takes one command, not %d\n", len(args)-1)
			return 2
		}
		// heapconv help CMD is CMD --help.
		return run(e, []string{args[1], "--help"})
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		w := e.stdout
		status := 0
		if len(args) == 0 {
			w, status = e.stderr, 2
		}
		printMainUsage(w)
		return status
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		err := c.run(e, args[1:])
		var ue *usageError
		var ge *growthError
		switch {
		case err == nil:
			return 0
		case errors.As(err, &ge):
			fmt.Fprintf(e.stderr, "heapconv %s: %v\n", c.name, err)
			return 3
		case errors.Is(err, pflag.ErrHelp):
			return 0
		case errors.As(err, &ue):
			// The error and the synopsis; the flags and examples are a
			// command away.
			synopsis, _, _ := strings.Cut(c.usage, "\n\n")
			fmt.Fprintf(e.stderr, "heapconv %s: %v\n\n%s\n\nRun \"heapconv help %s\" for the flags and examples.\n", c.name, err, synopsis, c.name)
			return 2
		case errors.Is(err, errReported):
			return 1
		default:
			fmt.Fprintf(e.stderr, "heapconv %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(e.stderr, "heapconv: unknown command %q\n\n", args[0])
	printMainUsage(e.stderr)
	return 2
}

// errReported means the command already printed its messages.
var errReported = errors.New("reported")

func printMainUsage(w io.Writer) {
	list := ""
	for _, c := range commands {
		list += fmt.Sprintf("  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, mainUsage, list)
}

// newFlags returns a quiet flag set: parse prints the usage for --help and
// turns flag errors into usage errors.
func newFlags(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SortFlags = false
	return fs
}

// parse parses flags, turning --help into printed usage and flag errors into
// usage errors.
func parse(e *env, fs *pflag.FlagSet, usage string, args []string) error {
	err := fs.Parse(args)
	if errors.Is(err, pflag.ErrHelp) {
		fmt.Fprint(e.stdout, usage)
		return err
	}
	if err != nil {
		return usagef("%v", err)
	}
	fs.Visit(func(f *pflag.Flag) {
		if v, ok := f.Value.(*inputValue); ok && err == nil && len(v.given) > 1 {
			err = usagef("--%s is given twice (%s), but it applies to every IN: give it once (%s)", f.Name, strings.Join(v.given, ", then "), v.hint)
		}
	})
	return err
}

// inputValue is a flag that says something of every IN (--from,
// --contents): given twice with different values, as if it applied to the
// IN after it (diff --from v8 a --from dart b), it is a usage error in
// every command, rather than the last value for every IN.
type inputValue struct {
	v     *string
	given []string // the different values given, in order
	hint  string   // what to do instead
}

func (v *inputValue) Set(s string) error {
	if !slices.Contains(v.given, s) {
		v.given = append(v.given, s)
	}
	*v.v = s
	return nil
}

func (v *inputValue) String() string { return *v.v }
func (v *inputValue) Type() string   { return "string" }

// inputFlag declares --from or --contents, which say something of every
// IN (inputValue).
func inputFlag(fs *pflag.FlagSet, name string) *string {
	p := new(string)
	hint := map[string]string{
		"from":     "without it, each IN's format is detected from its content",
		"contents": "the one directory is read for every IN",
	}[name]
	fs.Var(&inputValue{v: p, hint: hint}, name, "")
	return p
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

const versionUsage = `Usage: heapconv version
       heapconv --version

Prints heapconv's module version, the VCS revision it was built from (and
whether the tree had changes), the IR schema version it writes and the Go
version.

Examples:
  heapconv version
  heapconv --version
`

func runVersion(e *env, args []string) error {
	fs := newFlags("version")
	if err := parse(e, fs, versionUsage, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("version takes no arguments")
	}
	fmt.Fprintln(e.stdout, versionString())
	return nil
}

// versionString describes the build from its build info: "heapconv
// v1.2.3" for a tagged module, else the revision a checkout was built at.
func versionString() string {
	v, rev, when, modified := "(devel)", "", "", false
	goVersion := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		goVersion = bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	out := "heapconv " + v
	if rev != "" {
		out += ", revision " + rev
		if when != "" {
			out += " (" + when + ")"
		}
		if modified {
			out += " with local changes"
		}
	}
	out += fmt.Sprintf(", IR schema %d", ir.Version)
	if goVersion != "" {
		out += ", " + goVersion
	}
	return out
}
