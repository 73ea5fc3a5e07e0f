package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/memidx/memidx/engine"
)

// JSON-RPC 2.0 error codes.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
	rpcMethodNotFound = -32601
	rpcInvalidParams  = -32602
	rpcInternalError  = -32603
	// rpcRequestCancelled is LSP's RequestCancelled: the answer of a call
	// that $/cancelRequest cancelled.
	rpcRequestCancelled = -32800
)

// maxMessageBytes bounds one request message.
const maxMessageBytes = 16 << 20

// Concurrency bounds of a connection: calls running at once, and calls
// read but not yet answered (past it the reader waits: back-pressure).
const (
	serveRunning = 8
	serveQueued  = 1024
)

// Progress of a call that waits (on a refresh of a cold index, most often):
// a first progress notification after progressAfter, then one every
// progressEvery, and "done" before the answer. Its method is memidx's own,
// progressMethod: its payload names the call by id, which is not LSP's
// $/progress (a client token and {kind: begin|report|end}).
const (
	progressMethod = "memory.progress"
	progressAfter  = 250 * time.Millisecond
	progressEvery  = time.Second
)

type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcNotification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

func cmdServe(ctx context.Context, g globals, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("serve")
	stdio := fl.Bool("stdio", false, "serve JSON-RPC 2.0 on stdin/stdout (one message a line, or Content-Length framing)")
	socket := fl.Bool("socket", false, "serve only shell commands, on the index directory's socket")
	noSocket := fl.Bool("no-socket", false, "do not answer shell commands on the socket")
	catalogFile := fl.String("catalog", "", "capability catalog JSON file")
	noWatch := fl.Bool("no-watch", false, "list and stat every session file on each call instead of watching the session directories")
	lf := addLiveFlags(fl)
	limitsOf := addServeLimitFlags(fl)
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	if *stdio == *socket || len(pos) != 0 {
		return usageError("serve speaks JSON-RPC over stdio (memidx serve --stdio) or answers shell commands on its socket (memidx serve --socket)")
	}
	if err := checkSocketFlags(*socket, *noSocket, lf); err != nil {
		return err
	}
	limits, err := limitsOf()
	if err != nil {
		return err
	}
	defer hostHeap()()
	conn := &connLive{}
	if l := lf.live(); l != nil {
		conn.set(*l)
	}
	// A server lives for many calls: watching the session directories
	// spares each call a listing and a stat of every session file.
	e, err := openEngineWith(g, *catalogFile, conn, func(o *engine.Options) {
		o.Watch = !*noWatch
		if serveOpening != nil {
			serveOpening(*o)
		}
	})
	if err != nil {
		return err
	}
	defer e.Close()
	if *socket {
		return serveSocket(ctx, e, stderr)
	}
	if !*noSocket {
		if h, err := listenSocket(ctx, e); err == nil {
			defer h.close()
		} // else another server answers the shell, or none can here
	}
	s := newServer(ctx, e, conn)
	s.setLimits(limits)
	return s.serveStream(stdin, stdout)
}

// serveOpening, when set (tests), sees the options cmdServe opens its
// engine with.
var serveOpening func(engine.Options)

// connLive is the connection's live session: the host sets it with
// --live-* flags or the host.setLive method, never through the arguments
// of a memory call (a model may have written those). It is read afresh by
// every call, so the host's /tree navigation is seen.
type connLive struct {
	mu sync.Mutex
	l  engine.StaticLive
}

func (c *connLive) set(l engine.StaticLive) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.l = l
}

func (c *connLive) get() engine.StaticLive {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.l
}

func (c *connLive) SessionFile() string { return c.get().File }
func (c *connLive) LeafID() string      { return c.get().Leaf }
func (c *connLive) BranchIDs() []string { return c.get().Branch }

// setLive is host.setLive: {"sessionFile":…,"leafId":…,"branchIds":[…]}
// sets the connection's live session; {} or null clears it.
func setLive(conn *connLive, params json.RawMessage) rpcResponse {
	var l engine.StaticLive
	if len(bytes.TrimSpace(params)) > 0 && string(bytes.TrimSpace(params)) != "null" {
		dec := json.NewDecoder(bytes.NewReader(params))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return rpcResponse{Error: &rpcError{Code: rpcInvalidParams, Message: `host.setLive takes {"sessionFile":…,"leafId":…,"branchIds":[…]}: ` + err.Error()}}
		}
	}
	conn.set(l)
	return rpcResponse{Result: map[string]bool{"ok": true}}
}

// handler answers one method; extra handlers (tests) sit beside the
// built-in methods.
type handler func(ctx context.Context, s *server, c *call) (any, error)

// server is one serve connection. One reader at a time (readLoop: the
// caller of serveStream first, then the goroutine it hands the reading
// to) reads messages in order and handles the control methods
// (host.setLive, $/cancelRequest) itself, at once; a call runs on the
// goroutine that read it or, in a batch, on its own, and the
// frameWriter writes whole answers and notifications one at a time, in
// completion order.
type server struct {
	ctx   context.Context
	e     *engine.Engine
	conn  *connLive
	out   *frameWriter
	extra map[string]handler

	progressAfter, progressEvery time.Duration

	limits serveLimits
	// batchBytes holds the answers of batches not yet complete;
	// queuedBytes the answers handed to the writer and not yet written;
	// pendingBytes the arguments of the calls not yet answered.
	batchBytes, queuedBytes, pendingBytes *byteGate

	running chan struct{}
	queued  chan struct{}
	wg      sync.WaitGroup

	mu       sync.Mutex
	inflight map[string][]*call
}

func newServer(ctx context.Context, e *engine.Engine, conn *connLive) *server {
	s := &server{
		ctx: ctx, e: e, conn: conn,
		progressAfter: progressAfter, progressEvery: progressEvery,
		running:  make(chan struct{}, serveRunning),
		queued:   make(chan struct{}, serveQueued),
		inflight: map[string][]*call{},
	}
	s.setLimits(defaultServeLimits())
	return s
}

// setLimits sets the connection's limits, before it serves.
func (s *server) setLimits(l serveLimits) {
	s.limits = l
	s.batchBytes = newByteGate(l.maxBatchBytes)
	s.queuedBytes = newByteGate(l.maxQueuedBytes)
	s.pendingBytes = newByteGate(l.maxPendingBytes)
}

// serve answers JSON-RPC 2.0 requests on in until it ends, then waits for
// every call read to be answered.
func serve(ctx context.Context, e *engine.Engine, conn *connLive, in io.Reader, out io.Writer) error {
	return newServer(ctx, e, conn).serveStream(in, out)
}

func (s *server) serveStream(in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	f := detectFraming(r)
	s.out = &frameWriter{w: bufio.NewWriter(out), f: f, queued: s.queuedBytes}
	fr := &frameReader{r: r, f: f, max: maxMessageBytes}
	rd := &reading{done: make(chan struct{})}
	s.readLoop(fr, rd)
	<-rd.done
	s.wg.Wait()
	return rd.err
}

// reading is the state of a stream's reading as readers hand it on:
// done is closed when it ends, err says how when a reader panicked.
type reading struct {
	once sync.Once
	done chan struct{}
	err  error
}

func (rd *reading) end(err error) {
	rd.once.Do(func() {
		rd.err = err
		close(rd.done)
	})
}

// handOn continues the reading on a new goroutine. A panic there ends
// the reading with an error, as one on the first reader ends serve
// through the command's recover.
func (s *server) handOn(fr *frameReader, rd *reading) {
	go func() {
		defer func() {
			if r := recover(); r != nil {
				rd.end(fmt.Errorf("serve: reading requests: %v", r))
			}
		}()
		s.readLoop(fr, rd)
	}()
}

// readLoop reads and takes messages until the stream ends, then ends
// rd. A message that is one call hands the reading on to a new
// goroutine and runs the call on this one, which has just been given a
// processor for its read: a goroutine of the call's own waited for one
// first, and while the collector marks, its fractional workers hold the
// processors for up to milliseconds at such a hand-off (a 100k
// server's slow calls). The new reader's wait is off the call's path.
func (s *server) readLoop(fr *frameReader, rd *reading) {
	for {
		// Back-pressure: a client that does not read its answers is
		// not read from either.
		s.queuedBytes.waitRoom(s.ctx)
		msg, err := fr.next()
		var fe *errFrame
		if errors.As(err, &fe) {
			s.writeResponse(&rpcResponse{Error: &rpcError{Code: rpcParseError, Message: fe.msg}})
			continue
		}
		var call func()
		if msg = bytes.TrimSpace(msg); len(msg) > 0 {
			call = s.handle(msg)
		}
		if err != nil {
			rd.end(nil)
			if call != nil {
				call()
			}
			return
		}
		if call != nil {
			s.handOn(fr, rd)
			call()
			return
		}
	}
}

// handle takes one message: a request, a notification or a batch. For a
// call, it returns the call to run (see prepare).
func (s *server) handle(msg []byte) (call func()) {
	if !json.Valid(msg) {
		var v any
		err := json.Unmarshal(msg, &v)
		s.writeResponse(&rpcResponse{Error: &rpcError{Code: rpcParseError, Message: "parse error: " + err.Error()}})
		return nil
	}
	if msg[0] == '[' {
		s.handleBatch(msg)
		return nil
	}
	resp, c := s.accept(msg)
	if resp != nil {
		s.writeResponse(resp)
	}
	if c == nil {
		return nil
	}
	return s.prepare(c, func(r *rpcResponse) {
		if r != nil {
			s.writeResponse(r)
		}
	})
}

// handleBatch answers a JSON-RPC batch with one array, in the order of the
// batch, once every call in it is done. Notifications have no entry; a
// batch of notifications only gets no answer; an empty batch, or one of
// more than maxBatch requests, is one invalid-request error. The answers
// are encoded as they come, and held within maxBatchBytes.
func (s *server) handleBatch(msg []byte) {
	elems, err := splitBatch(msg, s.limits.maxBatch)
	switch {
	case errors.Is(err, errBatchTooLong):
		s.writeResponse(&rpcResponse{Error: &rpcError{Code: rpcInvalidRequest,
			Message: fmt.Sprintf("a batch holds at most %d requests (--max-batch): send fewer at once", s.limits.maxBatch)}})
		return
	case err != nil:
		s.writeResponse(&rpcResponse{Error: &rpcError{Code: rpcParseError, Message: "parse error: " + err.Error()}})
		return
	case len(elems) == 0:
		s.writeResponse(&rpcResponse{Error: &rpcError{Code: rpcInvalidRequest, Message: "an empty batch"}})
		return
	}
	b := &batchAnswer{s: s, parts: make([][]byte, len(elems))}
	var done sync.WaitGroup
	for i, el := range elems {
		resp, c := s.accept(el)
		if resp != nil {
			b.parts[i] = bytes.TrimRight(encodeResponse(resp), "\n")
		}
		if c != nil {
			done.Add(1)
			s.start(c, func(r *rpcResponse) {
				b.set(i, r)
				done.Done()
			})
		}
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		done.Wait()
		b.write()
	}()
}

// batchAnswer is a batch's answer as its calls finish: each call's answer
// encoded, charged to the connection's batchBytes until the batch is
// written.
type batchAnswer struct {
	s       *server
	mu      sync.Mutex
	parts   [][]byte
	charged int64
}

// set encodes the answer of element i; an answer the batch bytes cannot
// hold becomes a limit error naming the limit.
func (b *batchAnswer) set(i int, r *rpcResponse) {
	if r == nil {
		return
	}
	enc := bytes.TrimRight(encodeResponse(r), "\n")
	n := int64(len(enc))
	if !b.s.batchBytes.tryTake(n) {
		enc = limitError(r.ID, "the answer (%d bytes) does not fit the %d bytes that batch answers may hold (--max-batch-bytes): send this request on its own or in a smaller batch", n, b.s.limits.maxBatchBytes)
		n = 0
	}
	b.mu.Lock()
	b.parts[i] = enc
	b.charged += n
	b.mu.Unlock()
}

// write writes the batch's answers as one array, piece by piece, and
// releases their charge.
func (b *batchAnswer) write() {
	defer b.s.batchBytes.release(b.charged)
	pieces := make([][]byte, 0, 2*len(b.parts)+1)
	for _, p := range b.parts {
		if p == nil {
			continue
		}
		sep := []byte{','}
		if len(pieces) == 0 {
			sep = []byte{'['}
		}
		pieces = append(pieces, sep, p)
	}
	if len(pieces) == 0 {
		return
	}
	b.s.out.writePieces(append(pieces, []byte{']'}))
}

// accept checks one request in reading order. It answers malformed
// requests and the control methods itself (host.setLive takes effect
// before the next message is read, so every request read after it sees
// it); any other request becomes a call to run.
func (s *server) accept(raw json.RawMessage) (*rpcResponse, *call) {
	var req rpcRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return &rpcResponse{ID: idOf(raw), Error: &rpcError{Code: rpcInvalidRequest, Message: "a request is a JSON object: " + err.Error()}}, nil
	}
	if !validID(req.ID) {
		return &rpcResponse{Error: &rpcError{Code: rpcInvalidRequest, Message: "a request id is a string of valid UTF-8, a number or null"}}, nil
	}
	if req.JSONRPC != "2.0" || req.Method == "" {
		return &rpcResponse{ID: req.ID, Error: &rpcError{Code: rpcInvalidRequest, Message: `a request needs "jsonrpc":"2.0" and a method`}}, nil
	}
	answer := func(r rpcResponse) *rpcResponse {
		if req.ID == nil {
			return nil // a notification gets no answer
		}
		r.ID = req.ID
		return &r
	}
	switch req.Method {
	case "host.setLive":
		return answer(setLive(s.conn, req.Params)), nil
	case "$/cancelRequest":
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(orEmpty(req.Params), &p); err != nil || p.ID == nil || !validID(p.ID) {
			return answer(rpcResponse{Error: &rpcError{Code: rpcInvalidParams, Message: `$/cancelRequest takes {"id":…}`}}), nil
		}
		n := s.cancel(p.ID)
		return answer(rpcResponse{Result: map[string]bool{"cancelled": n > 0}}), nil
	}
	if req.ID == nil && len(req.Method) > 1 && req.Method[:2] == "$/" {
		return nil, nil // LSP: an unknown $/ notification is ignored
	}
	ctx, cancel := context.WithCancel(s.ctx)
	return nil, &call{req: req, ctx: ctx, cancelFn: cancel}
}

// call is one request being answered.
type call struct {
	req       rpcRequest
	ctx       context.Context
	cancelFn  context.CancelFunc
	cancelled atomic.Bool
}

func (c *call) key() string { return idKey(c.req.ID) }

// start runs c on its own goroutine and hands its answer (nil for a
// notification) to done.
func (s *server) start(c *call, done func(*rpcResponse)) { go s.prepare(c, done)() }

// prepare is start's accounting, done by the reader in reading order;
// it returns the call, to run on a goroutine of its own (start) or on
// the reader's once it has handed the reading on (readLoop).
func (s *server) prepare(c *call, done func(*rpcResponse)) func() {
	// Back-pressure on what calls hold: the reader waits here until the
	// arguments of the calls not yet answered leave room for this one's.
	charge := int64(len(c.req.Params) + len(c.req.ID) + len(c.req.Method))
	if s.pendingBytes.take(s.ctx, charge) != nil {
		charge = 0 // the server is ending; the call answers at once
	}
	s.queued <- struct{}{}
	s.wg.Add(1)
	if c.req.ID != nil {
		s.mu.Lock()
		s.inflight[c.key()] = append(s.inflight[c.key()], c)
		s.mu.Unlock()
	}
	return func() {
		defer s.wg.Done()
		defer func() { <-s.queued }()
		defer s.pendingBytes.release(charge)
		resp := s.run(c)
		if c.req.ID != nil {
			s.mu.Lock()
			list := s.inflight[c.key()]
			for i, x := range list {
				if x == c {
					list = append(list[:i:i], list[i+1:]...)
					break
				}
			}
			if len(list) == 0 {
				delete(s.inflight, c.key())
			} else {
				s.inflight[c.key()] = list
			}
			s.mu.Unlock()
		}
		c.cancelFn()
		if c.req.ID == nil {
			resp = nil
		} else if c.cancelled.Load() {
			// Once cancelled, always cancelled: a host that gave up on a
			// call gets one answer it can count on.
			resp = &rpcResponse{Error: &rpcError{Code: rpcRequestCancelled, Message: "request cancelled"}}
		}
		if resp != nil {
			resp.ID = c.req.ID
		}
		done(resp)
	}
}

// cancel cancels the calls in flight with this id and returns how many.
func (s *server) cancel(id json.RawMessage) int {
	s.mu.Lock()
	list := s.inflight[idKey(id)]
	s.mu.Unlock()
	for _, c := range list {
		c.cancelled.Store(true)
		c.cancelFn()
	}
	return len(list)
}

// run waits for a running slot (or the call's cancellation), then
// answers the call, with progress notifications while it takes long.
func (s *server) run(c *call) *rpcResponse {
	// A call starts only while the client reads its answers: what a slow
	// reader has not read bounds what new calls may add to it.
	if s.queuedBytes.waitRoom(c.ctx) != nil {
		return &rpcResponse{Error: &rpcError{Code: rpcRequestCancelled, Message: "request cancelled"}}
	}
	select {
	case s.running <- struct{}{}:
	case <-c.ctx.Done():
		return &rpcResponse{Error: &rpcError{Code: rpcRequestCancelled, Message: "request cancelled"}}
	}
	defer func() { <-s.running }()
	var p *waitProgress
	if c.req.ID != nil && c.req.Method != "memory.rebuild" {
		p = s.watch(c.req.ID)
	}
	resp := s.dispatch(c)
	p.stop()
	return resp
}

// notify writes a notification.
func (s *server) notify(method string, params any) {
	b, err := marshalJSON(rpcNotification{JSONRPC: "2.0", Method: method, Params: params})
	if err == nil {
		s.out.write(b)
	}
}

// waitProgress sends progressMethod notifications for a call that takes long:
// {"id":…,"message":"indexing","elapsedMs":…} after progressAfter and
// then every progressEvery, and {"id":…,"message":"done",…} when the call
// is done, before its answer.
type waitProgress struct {
	s     *server
	id    json.RawMessage
	start time.Time

	mu       sync.Mutex
	t        *time.Timer
	sent     bool
	finished bool
}

func (s *server) watch(id json.RawMessage) *waitProgress {
	if s.progressAfter <= 0 {
		return nil
	}
	p := &waitProgress{s: s, id: id, start: time.Now()}
	p.mu.Lock()
	p.t = time.AfterFunc(s.progressAfter, p.tick)
	p.mu.Unlock()
	return p
}

type progressParams struct {
	ID        json.RawMessage `json:"id"`
	Message   string          `json:"message"`
	ElapsedMs int64           `json:"elapsedMs"`
	Done      *int            `json:"done,omitempty"`
	Total     *int            `json:"total,omitempty"`
	BytesRead *int64          `json:"bytesRead,omitempty"`
}

func (p *waitProgress) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	p.sent = true
	p.s.notify(progressMethod, progressParams{ID: p.id, Message: "indexing", ElapsedMs: time.Since(p.start).Milliseconds()})
	p.t.Reset(p.s.progressEvery)
}

func (p *waitProgress) stop() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	p.finished = true
	p.t.Stop()
	if p.sent {
		p.s.notify(progressMethod, progressParams{ID: p.id, Message: "done", ElapsedMs: time.Since(p.start).Milliseconds()})
	}
}

// writeResponse writes one answer through a buffer kept for the next: a
// recall's answer (some 15 KB) was a tenth of a server's garbage a call.
func (s *server) writeResponse(r *rpcResponse) {
	bp, _ := responseBufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	b := appendResponse((*bp)[:0], r)
	s.out.write(b) // copies: the writer keeps nothing of b
	if cap(b) <= maxPooledResponse {
		*bp = b
		responseBufs.Put(bp)
	}
}

// responseBufs are writeResponse's buffers; one over maxPooledResponse
// (a large expand) is left to the collector rather than kept.
var responseBufs sync.Pool

const maxPooledResponse = 256 << 10

// encodeResponse encodes one answer; an answer that cannot be encoded
// becomes an internal error.
func encodeResponse(r *rpcResponse) []byte { return appendResponse(nil, r) }

// appendResponse is encodeResponse appended to dst.
func appendResponse(dst []byte, r *rpcResponse) []byte {
	r.JSONRPC = "2.0"
	if r.ID == nil {
		r.ID = json.RawMessage("null")
	}
	if r.Error == nil && r.Result == nil {
		r.Result = json.RawMessage("null")
	}
	if cr, ok := r.Result.(*engine.CallResult); ok && r.Error == nil {
		if b, ok := spliceResult(dst, r.ID, cr); ok {
			return b
		}
	}
	b, err := marshalJSON(r)
	if err != nil {
		b, _ = marshalJSON(rpcResponse{JSONRPC: "2.0", ID: r.ID, Error: &rpcError{Code: rpcInternalError, Message: err.Error()}})
	}
	return append(dst, b...)
}

// spliceResult writes the answer of a call as marshalJSON would, with the
// result's JSON (compact, from the engine) spliced in rather than scanned
// again by the encoder: the largest part of a recall's answer.
func spliceResult(dst []byte, id json.RawMessage, cr *engine.CallResult) ([]byte, bool) {
	head := bytes.NewBuffer(dst)
	head.WriteString(`{"jsonrpc":"2.0","id":`)
	if json.Compact(head, id) != nil {
		return nil, false
	}
	head.WriteString(`,"result":`)
	b, err := cr.AppendJSON(head.Bytes())
	if err != nil {
		return nil, false
	}
	return append(b, "}\n"...), true
}

func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// validID: absent, a string, a number or null. A string must be valid
// UTF-8: the id is echoed as sent, and an answer must be valid JSON text.
func validID(id json.RawMessage) bool {
	if id == nil {
		return true
	}
	switch c := bytes.TrimSpace(id); {
	case len(c) == 0:
		return false
	case c[0] == '"':
		return utf8.Valid(c)
	case c[0] == '-', '0' <= c[0] && c[0] <= '9', string(c) == "null":
		return true
	}
	return false
}

// idKey is an id's compact JSON: the same id written twice gives one key.
func idKey(id json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, id) != nil {
		return string(id)
	}
	return buf.String()
}

// idOf digs the id out of a request that did not decode, when it can.
func idOf(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) == nil && validID(m["id"]) {
		return m["id"]
	}
	return nil
}

func orEmpty(params json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(params)) == 0 {
		return json.RawMessage("{}")
	}
	return params
}

// dispatch runs one method.
func (s *server) dispatch(c *call) (resp *rpcResponse) {
	defer func() {
		if r := recover(); r != nil {
			resp = &rpcResponse{Error: &rpcError{Code: rpcInternalError, Message: fmt.Sprintf("memidx failed: %v", r)}}
		}
	}()
	ctx, req := c.ctx, c.req
	params := orEmpty(req.Params)
	var (
		result any
		err    error
	)
	switch req.Method {
	case "memory.recall", "memory.expand", "memory.sessions", "memory.walk":
		result, err = s.e.Call(ctx, engine.FabricCall{Ref: req.Method, Args: params})
	case "memory.rebuild":
		result, err = s.rebuild(ctx, req.ID, params)
	case "tools.call":
		var fc engine.FabricCall
		if jerr := json.Unmarshal(params, &fc); jerr != nil || fc.Ref == "" {
			return &rpcResponse{Error: &rpcError{Code: rpcInvalidParams, Message: `tools.call takes {"ref":…,"args":{…}}`}}
		}
		result, err = s.e.Call(ctx, fc)
	case "tools.catalog", "tools.search", "tools.describe":
		result, err = s.tools(ctx, req.Method, params)
	case "initialize", "rpc.discover":
		result = s.initialize()
	default:
		h, ok := s.extra[req.Method]
		if !ok {
			return &rpcResponse{Error: &rpcError{Code: rpcMethodNotFound, Message: "unknown method " + req.Method}}
		}
		result, err = h(ctx, s, c)
	}
	return answerOf(result, err)
}

// answerOf turns a method's outcome into a JSON-RPC answer. Domain
// outcomes are results, as in the library; a request the engine refused
// as malformed (requestErrorCodes) is an invalid-params error carrying the
// memidx error object in data; a cancelled context is RequestCancelled;
// any other Go error means memidx failed.
func answerOf(result any, err error) *rpcResponse {
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return &rpcResponse{Error: &rpcError{Code: rpcRequestCancelled, Message: "request cancelled"}}
		}
		eo := domainErrorObject(err)
		if eo == nil {
			return &rpcResponse{Error: &rpcError{Code: rpcInternalError, Message: err.Error()}}
		}
		if !requestErrorCodes[eo.Code] {
			return &rpcResponse{Result: &engine.CallError{Error: eo}}
		}
		return &rpcResponse{Error: &rpcError{Code: rpcInvalidParams, Message: eo.Message, Data: eo}}
	}
	if eo := resultError(result); eo != nil && requestErrorCodes[eo.Code] {
		return &rpcResponse{Error: &rpcError{Code: rpcInvalidParams, Message: eo.Message, Data: eo}}
	}
	return &rpcResponse{Result: result}
}
