// Package blackbox is the black-box protocol fuzzer: it runs a hub or player program under
// test and the reference program of the same role on the same fuzzed input, and reports
// every way the subject behaves differently (its exit, its stdout bytes, its stderr bytes).
//
// The reference is the oracle, so nothing about a mutated input's right answer has to be
// known in advance:
//
//   - Role player: the game's engine plays a random game (Simulate) and one seat's side of it
//     becomes a conversation (mockhub.FromEvents's events); the conversation is mutated at a
//     chosen point (PlayerMutations: malformed or boundary values, a wrong-turn message,
//     CRLF, binary bytes, a huge line, truncation, EOF mid-line, a signal, a delay...) and
//     played to the end in record mode (package record) against the subject and against the
//     reference player.
//   - Role hub: the engine's game (input files, arguments, seats) is given to the subject hub
//     and to the reference hub, with the same mock players (mockplayer -as NAME) carrying the
//     same random fault rules from the catalogue (HubFaults).
//
// A difference is run again to be sure it is not timing (unconfirmed ones are only counted),
// kept once per Signature (verdict kind, how both ended, the first differing line),
// minimised (drop messages or seats, then shorten lines, then drop injected faults, keeping
// the signature), and written as a ready-to-run .txtar case of the game's suite
// (docs/suites.md) that asserts the reference's behaviour: it passes on the reference and
// fails on the subject, and Verify checks both through the suite runner.
//
// Every case is made from the seed and its run number alone, so a run is reproducible from
// -seed. Games plug in through the Game interface (fuzz/pipegame): each game's adapter is its
// own code, in its judges/<game>judges (fuzz.go), and registers itself there.
package blackbox
