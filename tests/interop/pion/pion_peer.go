// Command pion_peer is the Pion side of zq's interop tests: a WebRTC peer built on Pion
// (github.com/pion/webrtc/v3, Debian's 3.1.56).
//
//	pion_peer offer          one data channel; prints the offer once ICE gathering is complete
//	pion_peer answer FILE    reads a remote offer from FILE; prints the answer once gathered
//	pion_peer echo OPTIONS   joins a zq signal room with a zq echo and checks the channel
//	                         (live.go; pion_peer echo -h lists the options)
//
// offer and answer write the description to stdout exactly as Pion wrote it (CRLF line ends,
// no added newline); diagnostics go to stderr. Run it in a network namespace with only
// loopback up: its host candidates are then loopback ones, which Pion gathers only when asked
// to (see newAPI).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/pion/webrtc/v3"
)

// gatherTimeout bounds ICE gathering: with host candidates only it ends in milliseconds.
const gatherTimeout = 10 * time.Second

// dataChannelLabel names the one data channel an offer carries.
const dataChannelLabel = "zq"

type command struct {
	usage string
	nargs int // -1: any number (the command parses its own flags)
	run   func(args []string, out io.Writer) error
}

var commands = map[string]command{
	"offer":  {usage: "offer", nargs: 0, run: runOffer},
	"answer": {usage: "answer FILE", nargs: 1, run: runAnswer},
	"echo": {usage: "echo --signal ws://127.0.0.1:PORT/ws --room ROOM --mode pion-dials|zq-dials",
		nargs: -1, run: runEcho},
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	cmd, ok := commands[os.Args[1]]
	if !ok || (cmd.nargs >= 0 && len(os.Args)-2 != cmd.nargs) {
		usage()
	}
	if err := cmd.run(os.Args[2:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "pion_peer %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage:")
	for _, name := range []string{"offer", "answer", "echo"} {
		fmt.Fprintf(os.Stderr, "  pion_peer %s\n", commands[name].usage)
	}
	os.Exit(2)
}

// newAPI returns the Pion API every subcommand uses: loopback host candidates included, since
// the tests run with nothing but lo up and Pion skips loopback interfaces by default. detach
// hands each data channel's reads to the caller (live.go says why).
func newAPI(detach bool) *webrtc.API {
	var s webrtc.SettingEngine
	s.SetIncludeLoopbackCandidate(true)
	if detach {
		s.DetachDataChannels()
	}
	return webrtc.NewAPI(webrtc.WithSettingEngine(s))
}

// newPeer has no ICE servers: nothing but host candidates, nothing sent off the machine.
func newPeer() (*webrtc.PeerConnection, error) {
	return newAPI(false).NewPeerConnection(webrtc.Configuration{})
}

// runOffer prints the offer of a peer with one data channel, after gathering.
func runOffer(_ []string, out io.Writer) error {
	pc, err := newPeer()
	if err != nil {
		return err
	}
	defer pc.Close()
	if _, err := pc.CreateDataChannel(dataChannelLabel, nil); err != nil {
		return err
	}
	offer, err := pc.CreateOffer(nil)
	if err != nil {
		return err
	}
	return setLocalAndPrint(pc, offer, out)
}

// runAnswer prints Pion's answer to the offer in args[0], after gathering.
func runAnswer(args []string, out io.Writer) error {
	text, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	pc, err := newPeer()
	if err != nil {
		return err
	}
	defer pc.Close()
	remote := webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: string(text)}
	if err := pc.SetRemoteDescription(remote); err != nil {
		return fmt.Errorf("remote offer refused: %w", err)
	}
	answer, err := pc.CreateAnswer(nil)
	if err != nil {
		return err
	}
	return setLocalAndPrint(pc, answer, out)
}

// setLocalAndPrint applies desc, waits for gathering to complete, and writes the local
// description, which then lists every candidate (no trickle needed by the reader).
func setLocalAndPrint(pc *webrtc.PeerConnection, desc webrtc.SessionDescription,
	out io.Writer) error {
	sdp, err := setLocalGathered(pc, desc)
	if err != nil {
		return err
	}
	_, err = io.WriteString(out, sdp)
	return err
}

// setLocalGathered applies desc and returns the local description once ICE gathering is
// complete, so that it holds every candidate.
func setLocalGathered(pc *webrtc.PeerConnection, desc webrtc.SessionDescription) (string, error) {
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(desc); err != nil {
		return "", err
	}
	select {
	case <-gathered:
	case <-time.After(gatherTimeout):
		return "", errors.New("ICE gathering did not complete")
	}
	local := pc.LocalDescription()
	if local == nil {
		return "", errors.New("no local description")
	}
	return local.SDP, nil
}
