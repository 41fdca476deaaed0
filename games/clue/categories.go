package clue

import "gauntlet/games/contract"

// Categories are the marking categories of the Clue suites: a client's (20 marks), judged
// live by a mock server, so any legal play passes; and a server's (20 marks), checked by six
// mock clients that together know every card. A submission builds "clue-client",
// "clue-server" or both.
var Categories = []contract.Category{
	{Name: "client/arguments", Program: "clue-client", Marks: 2, About: "usage errors exit 1; a server that cannot be reached exits 2 with its message"},
	{Name: "client/play", Program: "clue-client", Marks: 10, About: "whole games in every seat: every line legal and in time, disproofs included, exit 0 when the server closes"},
	{Name: "client/faults", Program: "clue-client", Marks: 8, About: "malformed, unexpected and cut messages from the server exit 3 with the message; a slow server is waited for"},
	{Name: "server/arguments", Program: "clue-server", Marks: 2, About: "usage errors exit 1; a port that cannot be listened on exits 2 with its message"},
	{Name: "server/games", Program: "clue-server", Marks: 10, About: "whole games with six clients: every message, deal, turn order, disprover and counter checked"},
	{Name: "server/faults", Program: "clue-server", Marks: 8, About: "silent, disconnecting, malformed and cheating clients are dropped as the protocol says, and the game goes on"},
}
