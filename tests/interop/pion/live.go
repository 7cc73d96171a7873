// pion_peer echo: Pion as a ZeroQ signalling client against `zq echo`, the way
// tests/interop/aiortc/aiortc_echo.py does it for aiortc.
//
// It joins ROOM on a `zq signal` server (golang.org/x/net/websocket, Debian's
// golang-golang-x-net-dev, which Pion's package already depends on), connects to the one other
// member (a `zq echo`) over a WebRTC data channel and checks what comes back:
//
//	open   the channel opens with label ROOM
//	burst  1,000 text messages come back, all of them, in order
//	size   0, 1, 1000, 16384, 65535 and 65536 bytes, as text and as binary, come back byte for
//	       byte with the same type
//	close  text "zq-echo close" makes zq close the channel: Pion sees its stream reset
//
// Modes (in ZeroQ the room's existing member dials the newcomer, on peer_joined):
//
//	pion-dials  start this first; it prints "pion: joined" and waits for a peer, to which it
//	            sends the offer
//	zq-dials    start `zq echo` first; zq sends the offer and Pion answers
//
// Pion puts every candidate in its description (it waits for gathering to complete), so it
// never trickles; candidates zq trickles are applied all the same.
//
// The 65536-byte sizes: Pion writes no a=max-message-size, which by RFC 8841 §6 means 65536,
// and it sends messages up to 65536 itself. But Pion 3.1.56's own read loop (DataChannel.
// readLoop, used by OnMessage) reads into a 65535-byte buffer: a 65536-byte message fails with
// io.ErrShortBuffer and Pion closes the channel. So by default the channels are detached
// (SettingEngine.DetachDataChannels) and read here into a buffer of 65536, the size the RFC
// says Pion takes. --stock-reader uses OnMessage instead, to show the Pion bug (README.md).
//
// One PASS/FAIL line per check, then the measured times; nothing is asserted on time. Exit
// status 0 only when every check passed.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/pion/datachannel"
	"github.com/pion/webrtc/v3"
	"golang.org/x/net/websocket"
)

const (
	burstCount   = 1000
	closeCommand = "zq-echo close"
	// maxMessageSize is what Pion takes: it writes no a=max-message-size, so RFC 8841 §6's
	// 65536 applies.
	maxMessageSize = 65536
)

var sizes = []int{0, 1, 1000, 16384, 65535, 65536}

type echoOptions struct {
	signal, room, mode  string
	timeout, msgTimeout time.Duration
	stockReader         bool
}

// message is one data-channel message as the peer received it.
type message struct {
	data []byte
	text bool
}

// frame is a ZeroQ signalling frame (join, welcome, peer_joined, offer, answer, ice_candidate);
// the fields a type does not use stay empty.
type frame struct {
	Type      string                     `json:"type"`
	TopicID   string                     `json:"topicId,omitempty"`
	PeerID    string                     `json:"peerId,omitempty"`
	SDP       *webrtc.SessionDescription `json:"sdp,omitempty"`
	Candidate *webrtc.ICECandidateInit   `json:"candidate,omitempty"`
}

// session is one signalling connection and the one peer connection the test needs.
type session struct {
	opt *echoOptions
	api *webrtc.API
	ws  *websocket.Conn

	mu        sync.Mutex
	pc        *webrtc.PeerConnection
	peerID    string
	tStart    time.Time // when the pair could start: our join, or peer_joined
	pending   []webrtc.ICECandidateInit
	remoteSet bool
	iceStates []string

	opened   chan *webrtc.DataChannel // the channel, once open (zq's ACK, or Pion's)
	openOnce sync.Once
	tOpen    time.Time
	msgs     chan message
	closed   chan error // why the channel ended: io.EOF when its stream was reset
	endOnce  sync.Once
	sigDone  chan error // why signalling ended
}

func logf(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, time.Now().Format("15:04:05.000")+" pion_peer: "+format+"\n", args...)
}

func (s *session) send(f frame) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return websocket.JSON.Send(s.ws, f)
}

// ---- peer connection ------------------------------------------------------------------------

func (s *session) newPC() (*webrtc.PeerConnection, error) {
	pc, err := s.api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return nil, err
	}
	pc.OnICEConnectionStateChange(func(st webrtc.ICEConnectionState) {
		s.mu.Lock()
		s.iceStates = append(s.iceStates, st.String())
		s.mu.Unlock()
		logf("ICE %s", st)
	})
	pc.OnConnectionStateChange(func(st webrtc.PeerConnectionState) {
		logf("connection %s", st)
		if st == webrtc.PeerConnectionStateFailed {
			s.end(errors.New("peer connection failed"))
		}
	})
	// zq dials: Pion calls this once it has acknowledged zq's DCEP OPEN.
	pc.OnDataChannel(func(dc *webrtc.DataChannel) { s.attach(dc, false) })
	s.pc = pc
	return pc, nil
}

// attach arranges for dc's messages, opening and end to reach the session. local: Pion opened
// it, so it is open on zq's DATA_CHANNEL_ACK; else Pion has acknowledged zq's OPEN already.
func (s *session) attach(dc *webrtc.DataChannel, local bool) {
	if s.opt.stockReader { // Pion's own read loop, started as the channel opens
		dc.OnMessage(func(m webrtc.DataChannelMessage) { s.msgs <- message{m.Data, m.IsString} })
		dc.OnError(func(err error) { logf("channel error: %v", err); s.end(err) })
		// Pion reports a read error with OnError (in a goroutine) and OnClose: let the error,
		// which says why, come first.
		dc.OnClose(func() { time.AfterFunc(50*time.Millisecond, func() { s.end(io.EOF) }) })
		dc.OnOpen(func() { s.open(dc) }) // a local channel's on the ACK
		return
	}
	dc.OnOpen(func() { s.detach(dc, local) })
}

// detach takes dc's reads over from Pion (see the top). Detached, Pion fires a local channel's
// OnOpen when it has sent the OPEN; the ACK is read (by ReadDataChannel) in readLoop.
func (s *session) detach(dc *webrtc.DataChannel, local bool) {
	rwc, err := dc.Detach()
	if err != nil {
		s.end(fmt.Errorf("detach: %w", err))
		return
	}
	if raw, ok := rwc.(*datachannel.DataChannel); ok && local {
		raw.OnOpen(func() { s.open(dc) })
	} else {
		s.open(dc)
	}
	go s.readLoop(rwc)
}

// readLoop reads whole messages into a buffer of the size Pion takes (see the top).
func (s *session) readLoop(rwc datachannel.ReadWriteCloser) {
	buf := make([]byte, maxMessageSize)
	for {
		n, text, err := rwc.ReadDataChannel(buf)
		if err != nil {
			s.end(err)
			return
		}
		s.msgs <- message{append([]byte(nil), buf[:n]...), text}
	}
}

func (s *session) open(dc *webrtc.DataChannel) {
	s.openOnce.Do(func() {
		s.tOpen = time.Now()
		s.opened <- dc
	})
}

func (s *session) end(why error) {
	s.endOnce.Do(func() { s.closed <- why })
}

func (s *session) dial(peer string) error {
	s.peerID = peer
	s.tStart = time.Now()
	pc, err := s.newPC()
	if err != nil {
		return err
	}
	dc, err := pc.CreateDataChannel(s.opt.room, nil)
	if err != nil {
		return err
	}
	s.attach(dc, true)
	offer, err := pc.CreateOffer(nil)
	if err != nil {
		return err
	}
	sdp, err := setLocalGathered(pc, offer)
	if err != nil {
		return err
	}
	logf("offer to %s:\n  %s", peer, sdpSummary(sdp))
	return s.send(frame{Type: "offer", PeerID: peer,
		SDP: &webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: sdp}})
}

func (s *session) answer(peer string, offer *webrtc.SessionDescription) error {
	if s.pc != nil {
		logf("ignoring a second offer, from %s", peer)
		return nil
	}
	s.peerID = peer
	if s.tStart.IsZero() {
		s.tStart = time.Now()
	}
	logf("offer from %s:\n  %s", peer, sdpSummary(offer.SDP))
	pc, err := s.newPC()
	if err != nil {
		return err
	}
	if err := pc.SetRemoteDescription(*offer); err != nil {
		return fmt.Errorf("zq's offer refused: %w", err)
	}
	if err := s.remoteDescriptionSet(); err != nil {
		return err
	}
	answer, err := pc.CreateAnswer(nil)
	if err != nil {
		return err
	}
	sdp, err := setLocalGathered(pc, answer)
	if err != nil {
		return err
	}
	logf("answer:\n  %s", sdpSummary(sdp))
	return s.send(frame{Type: "answer", PeerID: peer,
		SDP: &webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: sdp}})
}

func (s *session) answered(peer string, answer *webrtc.SessionDescription) error {
	if s.pc == nil || peer != s.peerID {
		logf("ignoring an answer from %s", peer)
		return nil
	}
	logf("answer from %s:\n  %s", peer, sdpSummary(answer.SDP))
	if err := s.pc.SetRemoteDescription(*answer); err != nil {
		return fmt.Errorf("zq's answer refused: %w", err)
	}
	return s.remoteDescriptionSet()
}

func (s *session) remoteDescriptionSet() error {
	s.remoteSet = true
	for _, c := range s.pending {
		if err := s.pc.AddICECandidate(c); err != nil {
			return err
		}
	}
	s.pending = nil
	return nil
}

func (s *session) remoteCandidate(peer string, c *webrtc.ICECandidateInit) error {
	if c == nil || c.Candidate == "" {
		return nil // end of candidates
	}
	if strings.Contains(c.Candidate, ".local ") {
		logf("dropping mDNS candidate %s", c.Candidate) // else Pion would send multicast
		return nil
	}
	logf("remote candidate from %s: %s", peer, c.Candidate)
	if s.pc != nil && s.remoteSet {
		return s.pc.AddICECandidate(*c)
	}
	s.pending = append(s.pending, *c)
	return nil
}

func sdpSummary(sdp string) string {
	keep := []string{"m=", "a=sctp", "a=max-message-size", "a=setup", "a=ice-lite",
		"a=candidate", "a=end-of-candidates", "a=fingerprint"}
	var out []string
	for _, line := range strings.Split(strings.ReplaceAll(sdp, "\r\n", "\n"), "\n") {
		for _, k := range keep {
			if strings.HasPrefix(line, k) {
				out = append(out, line)
				break
			}
		}
	}
	return strings.Join(out, "\n  ")
}

// ---- signalling -----------------------------------------------------------------------------

func (s *session) signalling() {
	for {
		var raw string
		if err := websocket.Message.Receive(s.ws, &raw); err != nil {
			s.sigDone <- fmt.Errorf("the signalling server closed the WebSocket (%v)", err)
			return
		}
		var f frame
		if err := json.Unmarshal([]byte(raw), &f); err != nil {
			logf("bad signalling frame %.200q: %v", raw, err)
			continue
		}
		logf("<< %s %s", f.Type, f.PeerID)
		var err error
		switch {
		case f.Type == "welcome":
			fmt.Printf("pion: joined room %s as %s\n", s.opt.room, f.PeerID)
		case f.Type == "peer_joined" && s.pc == nil:
			err = s.dial(f.PeerID)
		case f.Type == "offer" && f.SDP != nil:
			err = s.answer(f.PeerID, f.SDP)
		case f.Type == "answer" && f.SDP != nil:
			err = s.answered(f.PeerID, f.SDP)
		case f.Type == "ice_candidate":
			err = s.remoteCandidate(f.PeerID, f.Candidate)
		case f.Type == "peer_left" && f.PeerID == s.peerID:
			logf("peer %s left", f.PeerID)
		}
		if err != nil {
			s.sigDone <- err
			return
		}
	}
}

// ---- checks ---------------------------------------------------------------------------------

type checks struct{ passed, failed int }

func (c *checks) report(ok bool, name, detail string) bool {
	word := "FAIL"
	if ok {
		word = "PASS"
		c.passed++
	} else {
		c.failed++
	}
	if detail != "" {
		name += ": " + detail
	}
	fmt.Printf("%s %s\n", word, name)
	return ok
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond)) }

// textPayload is n bytes of ASCII (so n UTF-8 bytes) that differ along the message.
func textPayload(n int) []byte {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	p := make([]byte, n)
	for i := range p {
		p[i] = alphabet[(i*7+i/61)%len(alphabet)]
	}
	return p
}

// binaryPayload is n bytes covering every byte value, zero included.
func binaryPayload(n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(i*31 + i>>8)
	}
	return p
}

func describe(m message) string {
	if m.text {
		return fmt.Sprintf("text %d B", len(m.data))
	}
	return fmt.Sprintf("binary %d B", len(m.data))
}

func sendMsg(dc *webrtc.DataChannel, m message) error {
	if m.text {
		return dc.SendText(string(m.data))
	}
	return dc.Send(m.data)
}

// expect waits for the next message; ok false on timeout or when the channel ended.
func (s *session) expect(timeout time.Duration) (message, string) {
	select {
	case m := <-s.msgs:
		return m, ""
	case why := <-s.closed:
		s.closed <- why // keep it for the close check
		return message{}, fmt.Sprintf("the channel ended (%v)", why)
	case <-time.After(timeout):
		return message{}, fmt.Sprintf("nothing within %v", timeout)
	}
}

func (s *session) checkBurst(dc *webrtc.DataChannel, c *checks) (time.Duration, bool) {
	t0 := time.Now()
	for i := 0; i < burstCount; i++ {
		if err := dc.SendText(fmt.Sprintf("burst %04d", i)); err != nil {
			c.report(false, "burst", fmt.Sprintf("send %d: %v", i, err))
			return 0, true
		}
	}
	got, inOrder, first, why := 0, true, "", ""
	for got < burstCount {
		m, w := s.expect(s.opt.msgTimeout)
		if w != "" {
			why = w
			break
		}
		if want := fmt.Sprintf("burst %04d", got); inOrder && (!m.text || string(m.data) != want) {
			inOrder, first = false, fmt.Sprintf(" (message %d was %q)", got, m.data)
		}
		got++
	}
	elapsed := time.Since(t0)
	ok := got == burstCount && inOrder
	detail := fmt.Sprintf("%d of %d back, ", got, burstCount)
	if inOrder {
		detail += "in order"
	} else {
		detail += "OUT OF ORDER" + first
	}
	if ok {
		detail += ", round trip of all " + ms(elapsed) + " ms"
	} else if why != "" {
		detail += ", then " + why
	}
	c.report(ok, "burst", detail)
	return elapsed, got < burstCount
}

// checkSizes sends one message at a time; once one is not back the rest are not sent.
func (s *session) checkSizes(dc *webrtc.DataChannel, c *checks, stuck bool) {
	for _, n := range sizes {
		for _, m := range []message{{textPayload(n), true}, {binaryPayload(n), false}} {
			name := "size " + describe(m)
			if stuck {
				c.report(false, name, "not sent: the channel is stuck")
				continue
			}
			t0 := time.Now()
			if err := sendMsg(dc, m); err != nil {
				c.report(false, name, fmt.Sprintf("Pion would not send it: %v", err))
				continue
			}
			echo, why := s.expect(s.opt.msgTimeout)
			switch {
			case why != "":
				c.report(false, name, "no echo: "+why)
				stuck = true
			case echo.text != m.text || len(echo.data) != len(m.data):
				c.report(false, name, "came back as "+describe(echo))
			case string(echo.data) != string(m.data):
				i := 0
				for echo.data[i] == m.data[i] {
					i++
				}
				c.report(false, name, fmt.Sprintf("first difference at byte %d", i))
			default:
				c.report(true, name, "byte-exact, "+ms(time.Since(t0))+" ms")
			}
		}
	}
}

func (s *session) checkClose(dc *webrtc.DataChannel, c *checks) {
	t0 := time.Now()
	if err := dc.SendText(closeCommand); err != nil {
		c.report(false, "close", fmt.Sprintf("send: %v", err))
		return
	}
	var stray []string
	deadline := time.After(s.opt.msgTimeout)
	for {
		select {
		case m := <-s.msgs:
			stray = append(stray, describe(m))
			continue
		case why := <-s.closed:
			detail := fmt.Sprintf("stream %d reset %s ms after %q", *dc.ID(), ms(time.Since(t0)),
				closeCommand)
			if len(stray) > 0 {
				detail += fmt.Sprintf(" (also received %v)", stray)
			}
			if !errors.Is(why, io.EOF) {
				c.report(false, "close", fmt.Sprintf("the channel ended with %v, not a reset", why))
				return
			}
			c.report(true, "close", detail)
			return
		case <-deadline:
			c.report(false, "close", fmt.Sprintf("channel still open %v after %q",
				s.opt.msgTimeout, closeCommand))
			return
		}
	}
}

// waitChannel returns the open channel, or says why there is none.
func (s *session) waitChannel() (*webrtc.DataChannel, error) {
	select {
	case dc := <-s.opened:
		return dc, nil
	case err := <-s.sigDone:
		return nil, err
	case why := <-s.closed:
		return nil, fmt.Errorf("channel ended before it opened (%v)", why)
	case <-time.After(s.opt.timeout):
		return nil, fmt.Errorf("no open channel within %v", s.opt.timeout)
	}
}

func (s *session) run(c *checks) error {
	ws, err := websocket.Dial(s.opt.signal, "", "http://127.0.0.1/")
	if err != nil {
		return err
	}
	defer ws.Close()
	s.ws = ws
	tJoin := time.Now()
	if s.opt.mode == "zq-dials" {
		s.tStart = tJoin
	}
	if err := s.send(frame{Type: "join", TopicID: s.opt.room}); err != nil {
		return err
	}
	go s.signalling()
	dc, err := s.waitChannel()
	if err != nil {
		s.mu.Lock()
		states, peer := strings.Join(s.iceStates, " "), s.peerID
		s.mu.Unlock()
		c.report(false, "open", fmt.Sprintf("%v (ICE states: %s; peer %s)", err, states, peer))
		s.closePC()
		return nil
	}
	joinOpen := s.tOpen.Sub(s.tStart)
	who := "Pion's join"
	if s.opt.mode == "pion-dials" {
		who = "zq's peer_joined"
	}
	c.report(dc.Label() == s.opt.room, "open", fmt.Sprintf("label %q, stream %d, %s -> open %s ms",
		dc.Label(), *dc.ID(), who, ms(joinOpen)))
	burst, stuck := s.checkBurst(dc, c)
	s.checkSizes(dc, c, stuck)
	s.checkClose(dc, c)
	round := "n/a"
	if !stuck {
		round = ms(burst) + " ms"
	}
	fmt.Printf("figures (%s): join->open %s ms, %d-message round trip %s\n", s.opt.mode,
		ms(joinOpen), burstCount, round)
	s.closePC()
	return nil
}

func (s *session) closePC() {
	s.mu.Lock()
	pc := s.pc
	s.mu.Unlock()
	if pc != nil {
		_ = pc.Close()
	}
}

func runEcho(args []string, _ io.Writer) error {
	fs := flag.NewFlagSet("echo", flag.ExitOnError)
	opt := &echoOptions{}
	fs.StringVar(&opt.signal, "signal", "", "zq signal's WebSocket, ws://127.0.0.1:PORT/ws")
	fs.StringVar(&opt.room, "room", "", "the room, also the channel label")
	fs.StringVar(&opt.mode, "mode", "", "pion-dials or zq-dials")
	fs.DurationVar(&opt.timeout, "timeout", 30*time.Second, "for the channel to open")
	fs.DurationVar(&opt.msgTimeout, "message-timeout", 15*time.Second, "for each echo")
	fs.BoolVar(&opt.stockReader, "stock-reader", false,
		"read with Pion's OnMessage (65535-byte buffer) instead of a detached channel")
	_ = fs.Parse(args)
	if opt.signal == "" || opt.room == "" || (opt.mode != "pion-dials" && opt.mode != "zq-dials") ||
		fs.NArg() != 0 {
		fs.Usage()
		os.Exit(2)
	}
	s := &session{opt: opt, api: newAPI(!opt.stockReader),
		opened: make(chan *webrtc.DataChannel, 1), msgs: make(chan message, 2*burstCount),
		closed: make(chan error, 1), sigDone: make(chan error, 1)}
	var c checks
	if err := s.run(&c); err != nil {
		c.report(false, "open", err.Error())
	}
	name := opt.mode
	if opt.stockReader {
		name += ", stock reader"
	}
	fmt.Printf("pion (%s): %d passed, %d failed\n", name, c.passed, c.failed)
	if c.failed > 0 || c.passed == 0 {
		os.Exit(1)
	}
	return nil
}
