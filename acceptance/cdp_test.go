package acceptance

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// devtools drives a headless Chromium through its DevTools protocol over a pipe
// (--remote-debugging-pipe: the browser reads requests on its fd 3 and writes answers and
// events on its fd 4, each a JSON message ended by a NUL byte), so that a test can click
// where a person clicks and take a screenshot of what the page shows.
type devtools struct {
	t       *testing.T
	cmd     *exec.Cmd
	to      io.WriteCloser
	session string

	mu      sync.Mutex
	next    int
	waiting map[int]chan cdpMessage
	events  chan cdpMessage
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// startDevtools starts chromium headless with a page of the given size open on url, and
// waits for the page's load event. The browser is closed when the test ends.
func startDevtools(t *testing.T, chromium, url string, width, height int) *devtools {
	t.Helper()
	toR, toW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromR, fromW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--hide-scrollbars", "--user-data-dir="+t.TempDir(), "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{toR, fromW}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	toR.Close()
	fromW.Close()
	d := &devtools{t: t, cmd: cmd, to: toW, waiting: map[int]chan cdpMessage{}, events: make(chan cdpMessage, 1024)}
	t.Cleanup(func() {
		d.to.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		cancel()
		fromR.Close()
	})
	go d.read(fromR)

	var target struct{ TargetID string }
	d.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct{ SessionID string }
	d.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	d.session = attached.SessionID
	d.call(d.session, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil)
	d.call(d.session, "Page.enable", nil, nil)
	d.call(d.session, "Runtime.enable", nil, nil)
	d.call(d.session, "Page.navigate", map[string]any{"url": url}, nil)
	d.waitEvent("Page.loadEventFired")
	return d
}

// read dispatches the browser's messages: answers to their callers, events to d.events.
func (d *devtools) read(r io.Reader) {
	br := bufio.NewReader(r)
	for {
		data, err := br.ReadBytes(0)
		if err != nil {
			close(d.events)
			d.mu.Lock()
			for id, ch := range d.waiting {
				close(ch)
				delete(d.waiting, id)
			}
			d.mu.Unlock()
			return
		}
		var m cdpMessage
		if json.Unmarshal(data[:len(data)-1], &m) != nil {
			continue
		}
		if m.ID != 0 {
			d.mu.Lock()
			ch := d.waiting[m.ID]
			delete(d.waiting, m.ID)
			d.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		select {
		case d.events <- m:
		default: // a test that reads no events does not stall the browser
		}
	}
}

// call sends one request and decodes its result into out (when not nil).
func (d *devtools) call(session, method string, params any, out any) {
	d.t.Helper()
	d.mu.Lock()
	d.next++
	id := d.next
	ch := make(chan cdpMessage, 1)
	d.waiting[id] = ch
	d.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	if _, err := d.to.Write(append(data, 0)); err != nil {
		d.t.Fatalf("%s: %v", method, err)
	}
	select {
	case m, ok := <-ch:
		switch {
		case !ok:
			d.t.Fatalf("%s: the browser closed the pipe", method)
		case m.Error != nil:
			d.t.Fatalf("%s: %s", method, m.Error.Message)
		case out != nil:
			if err := json.Unmarshal(m.Result, out); err != nil {
				d.t.Fatalf("%s: %v (%s)", method, err, m.Result)
			}
		}
	case <-time.After(time.Minute):
		d.t.Fatalf("%s: no answer from the browser in a minute", method)
	}
}

// waitEvent waits for the page's event named method, keeping the console's errors and
// the page's exceptions seen meanwhile.
func (d *devtools) waitEvent(method string) {
	d.t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case m, ok := <-d.events:
			if !ok {
				d.t.Fatalf("waiting for %s: the browser closed the pipe", method)
			}
			d.noteProblem(m)
			if m.Method == method && m.SessionID == d.session {
				return
			}
		case <-timeout:
			d.t.Fatalf("no %s in a minute", method)
		}
	}
}

// noteProblem fails the test on an exception thrown in the page or an error logged to its
// console.
func (d *devtools) noteProblem(m cdpMessage) {
	switch m.Method {
	case "Runtime.exceptionThrown":
		d.t.Errorf("the page threw: %s", m.Params)
	case "Runtime.consoleAPICalled":
		var p struct{ Type string }
		if json.Unmarshal(m.Params, &p) == nil && (p.Type == "error" || p.Type == "warning") {
			d.t.Errorf("the page's console: %s", m.Params)
		}
	}
}

// drainProblems looks at the events that came so far for exceptions and console errors.
func (d *devtools) drainProblems() {
	for {
		select {
		case m, ok := <-d.events:
			if !ok {
				return
			}
			d.noteProblem(m)
		default:
			return
		}
	}
}

// eval evaluates a JavaScript expression in the page and decodes its value (JSON) into out.
func (d *devtools) eval(expr string, out any) {
	d.t.Helper()
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	d.call(d.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &res)
	if len(res.ExceptionDetails) > 0 {
		d.t.Fatalf("%s: %s", expr, res.ExceptionDetails)
	}
	if err := json.Unmarshal(res.Result.Value, out); err != nil {
		d.t.Fatalf("%s: %v (%s)", expr, err, res.Result.Value)
	}
}

// click presses and releases the left mouse button at the middle of the element the CSS
// selector finds, as a person's click.
func (d *devtools) click(selector string) {
	d.t.Helper()
	var box struct{ X, Y float64 }
	d.eval(fmt.Sprintf(`(function () { var e = document.querySelector(%q); e.scrollIntoView({block: "nearest", inline: "nearest"}); var r = e.getBoundingClientRect(); return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()`, selector), &box)
	d.call(d.session, "Input.dispatchMouseEvent", map[string]any{"type": "mouseMoved", "x": box.X, "y": box.Y}, nil)
	for _, kind := range []string{"mousePressed", "mouseReleased"} {
		d.call(d.session, "Input.dispatchMouseEvent", map[string]any{"type": kind, "x": box.X, "y": box.Y, "button": "left", "clickCount": 1}, nil)
	}
}

// screenshot is a PNG of the page's viewport.
func (d *devtools) screenshot() []byte {
	d.t.Helper()
	var shot struct{ Data string }
	d.call(d.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot)
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		d.t.Fatal(err)
	}
	return png
}
