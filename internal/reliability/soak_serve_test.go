//go:build unix

package reliability

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// servePeakRSSBound is what one serve process may reach, whatever its
// client sends, with the default limits.
const servePeakRSSBound = 512 << 20

// TestSoakServe drives one `serve --stdio` process with large batches
// (walk pages past the batch answer bound, batches over the request bound,
// a thousand initialize calls), single calls, and a client that reads its
// answers slowly and stalls: every request must be answered exactly once,
// the server must end at EOF, and its peak RSS stay under 512 MiB. The
// second run adds a neighbour that truncates index.db and a writer that
// appends to a session while serve refreshes and writes the index.
func TestSoakServe(t *testing.T) {
	t.Run("batches and a slow reader", func(t *testing.T) { serveSoak(t, false) })
	t.Run("with a truncating neighbour", func(t *testing.T) { serveSoak(t, true) })
}

// serveClient is the soak's side of one serve process.
type serveClient struct {
	t      *testing.T
	mu     sync.Mutex
	sent   map[string]int // ids sent, answered when 0
	refuse int            // batches sent over the request bound
	got    map[string]int // answers by id
	nulls  int            // answers with a null id: refused batches
	limits int            // answers refused by the batch answer bound
	bytes  int64
	bad    []string
}

func (c *serveClient) expect(id string) {
	c.mu.Lock()
	c.sent[id]++
	c.mu.Unlock()
}

// answered reports whether every request sent has its answer.
func (c *serveClient) answered() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.got) == len(c.sent) && c.nulls == c.refuse
}

// take records one answer object.
func (c *serveClient) take(raw json.RawMessage) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := json.Unmarshal(raw, &m); err != nil {
		c.bad = append(c.bad, "not JSON: "+clip(raw, 200))
		return
	}
	switch {
	case m.Method != "":
		return // a notification
	case string(m.ID) == "null" || m.ID == nil:
		c.nulls++
		if m.Error == nil || m.Error.Code != -32600 {
			c.bad = append(c.bad, "a null-id answer that is not a refused batch: "+clip(raw, 300))
		}
		return
	}
	id := string(m.ID)
	c.got[id]++
	if c.sent[id] == 0 {
		c.bad = append(c.bad, "an answer to no request: "+id)
	}
	if m.Error != nil && m.Error.Code == -32001 {
		c.limits++
	}
}

// read reads the answers slowly: a pause every MiB, and a stall of a
// second and a half every few seconds, so that answers queue in serve.
func (c *serveClient) read(r io.Reader, done chan<- struct{}) {
	defer close(done)
	br := bufio.NewReaderSize(r, 1<<20)
	var since int64
	lastStall := time.Now()
	for {
		line, err := br.ReadBytes('\n')
		c.mu.Lock()
		c.bytes += int64(len(line))
		c.mu.Unlock()
		if line = bytes.TrimSpace(line); len(line) > 0 {
			if line[0] == '[' {
				var arr []json.RawMessage
				if json.Unmarshal(line, &arr) != nil {
					c.mu.Lock()
					c.bad = append(c.bad, "a batch answer that is not an array: "+clip(line, 200))
					c.mu.Unlock()
				}
				for _, el := range arr {
					c.take(el)
				}
			} else {
				c.take(line)
			}
		}
		if err != nil {
			return
		}
		if since += int64(len(line)); since > 1<<20 {
			since = 0
			time.Sleep(20 * time.Millisecond)
		}
		if time.Since(lastStall) > 3*time.Second {
			time.Sleep(1500 * time.Millisecond)
			lastStall = time.Now()
		}
	}
}

func rpcLine(id, method string, params any) string {
	m := map[string]any{"jsonrpc": "2.0", "method": method, "id": id}
	if params != nil {
		m["params"] = params
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// requests writes rounds of requests until the deadline.
func (c *serveClient) requests(in io.Writer, rng *rand.Rand, paths []string, words []string, deadline time.Time) {
	n := 0
	id := func(kind string) string { n++; return strconv.Quote(fmt.Sprintf("%s-%d", kind, n)) }
	send := func(lines ...string) bool {
		_, err := io.WriteString(in, strings.Join(lines, "\n")+"\n")
		return err == nil
	}
	batch := func(kind string, count int, method string, params func() any) string {
		parts := make([]string, count)
		for i := range parts {
			k := id(kind)
			c.expect(k)
			parts[i] = rpcLine(k[1:len(k)-1], method, params())
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	walk := func() any { return map[string]any{"session": paths[rng.IntN(len(paths))], "pageSize": 100} }
	for round := 0; time.Now().Before(deadline); round++ {
		var lines []string
		switch round % 4 {
		case 0: // a thousand walk pages: past the batch answer bound
			lines = append(lines, batch("walk", 1000, "memory.walk", walk))
		case 1: // over the request bound: one refusal, nothing runs
			parts := make([]string, 1001)
			for i := range parts {
				parts[i] = rpcLine("over", "initialize", nil)
			}
			c.mu.Lock()
			c.refuse++
			c.mu.Unlock()
			lines = append(lines, "["+strings.Join(parts, ",")+"]")
		case 2:
			lines = append(lines, batch("init", 1000, "initialize", func() any { return nil }))
		case 3:
			for i := 0; i < 20; i++ {
				k := id("one")
				c.expect(k)
				q := map[string]any{"query": words[rng.IntN(len(words))], "scope": "global"}
				lines = append(lines, rpcLine(k[1:len(k)-1], "memory.recall", q))
				k = id("one")
				c.expect(k)
				lines = append(lines, rpcLine(k[1:len(k)-1], "memory.walk", walk()))
			}
		}
		if !send(lines...) {
			return
		}
	}
}

// vmHWM is a process's peak RSS in bytes from /proc, or 0.
func vmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// neighbour truncates index.db now and then, and appends turns to a
// session so that serve refreshes (and writes) the index meanwhile.
func neighbour(w *world, g *gen, m *model, path string, stop <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	db := filepath.Join(w.index, "index.db")
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		case <-time.After(150 * time.Millisecond):
		}
		if i%2 == 0 {
			if st, err := os.Stat(db); err == nil && st.Size() > 0 {
				os.Truncate(db, g.r.Int64N(st.Size()))
			}
			continue
		}
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			continue
		}
		f.WriteString(strings.Join(g.turn(m, 30), "\n") + "\n")
		f.Close()
	}
}

func serveSoak(t *testing.T, truncate bool) {
	secs := soakSeconds()
	rng := seeded(t)
	w := newWorld(t)
	g := newGen(rng)
	var paths []string
	var models []*model
	for i := 0; i < 4; i++ {
		m := g.session(fmt.Sprintf("serve%02d", i), w.project, 1<<20, 120)
		models = append(models, m)
		paths = append(paths, w.writeSession(m.id, m.bytes()))
	}
	clean(t, w.run(runOpts{timeout: 60 * time.Second}, "rebuild"))

	cmd := exec.Command(w.bin, "--agent-dir", w.agent, "--index-dir", w.index, "--cwd", w.project, "serve", "--stdio")
	cmd.Dir, cmd.Env = w.project, w.procEnv
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	killed := false
	hardStop := time.AfterFunc(time.Duration(secs)*time.Second+90*time.Second, func() {
		killed = true
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	})
	defer hardStop.Stop()

	c := &serveClient{t: t, sent: map[string]int{}, got: map[string]int{}}
	readDone := make(chan struct{})
	go c.read(stdout, readDone)
	stop := make(chan struct{})
	var nwg sync.WaitGroup
	if truncate {
		nwg.Add(1)
		go neighbour(w, newGen(seededAs(t, "neighbour")), models[0], paths[0], stop, &nwg)
	}
	start := time.Now()
	c.requests(stdin, rng, paths, g.words[:40], start.Add(time.Duration(secs)*time.Second))

	// Every request answered before the input ends: then the peak.
	waitUntil := time.Now().Add(60 * time.Second)
	for !c.answered() && time.Now().Before(waitUntil) && !killed {
		time.Sleep(50 * time.Millisecond)
	}
	peak := vmHWM(cmd.Process.Pid)
	close(stop)
	nwg.Wait()
	stdin.Close()
	exited := make(chan error, 1)
	go func() { <-readDone; exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		assert.NoError(t, err, "serve exits 0 at EOF\nstderr: %s", clip(stderr.Bytes(), 2000))
	case <-time.After(30 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Error("serve did not end at EOF")
	}
	assert.False(t, killed, "serve hung: killed after the soak's time")

	c.mu.Lock()
	defer c.mu.Unlock()
	assert.Empty(t, c.bad)
	assert.Equal(t, c.refuse, c.nulls, "one refusal for each batch over the request bound")
	missing, twice := 0, 0
	for id := range c.sent {
		switch c.got[id] {
		case 0:
			missing++
		case 1:
		default:
			twice++
		}
	}
	assert.Zero(t, missing, "requests never answered")
	assert.Zero(t, twice, "requests answered more than once")
	assert.Positive(t, c.limits, "the walk batches reach the batch answer bound")
	if peak > 0 {
		assert.Less(t, peak, int64(servePeakRSSBound), "serve's peak RSS")
	} else {
		t.Log("no /proc: the peak RSS is not measured")
	}
	t.Logf("serve soak (%ds, truncating %v): %d requests, %d refused batches, %d answers over the batch bound, %d MB read, peak RSS %d MB, %v",
		secs, truncate, len(c.sent), c.refuse, c.limits, c.bytes>>20, peak>>20, time.Since(start).Round(time.Millisecond))
}
