package stlucia

import "gauntlet/games/contract"

// Categories are the marking categories of the King of St Lucia suite. The spec gives no
// marks, so these follow the suite's test groups, weighted by how much of the spec each
// covers (40 marks in all). Program is "stlucia" for the hub's categories and "players" for
// those every player program shares.
var Categories = []contract.Category{
	{Name: "hub/arguments", Program: "stlucia", Marks: 3, About: "usage, winscore and roll file checks, in order (exit 1-4)"},
	{Name: "hub/starting players", Program: "stlucia", Marks: 2, About: "starting players, the ! handshake (exit 5)"},
	{Name: "hub/complete games", Program: "stlucia", Marks: 10, About: "whole games: hub stderr byte for byte, 2 to 26 players"},
	{Name: "hub/player faults", Program: "stlucia", Marks: 6, About: "players that quit, send bad or illegal messages (exit 6-8), and the fault catalogue"},
	{Name: "hub/signals and shutdown", Program: "stlucia", Marks: 3, About: "SIGINT (exit 9), the 2-second kill, the exit lines, no leftovers"},
	{Name: "players/arguments", Program: "players", Marks: 3, About: "player argument checks (exit 1-3) and the ! handshake"},
	{Name: "players/game play", Program: "players", Marks: 10, About: "every strategy's replies and stderr through whole games"},
	{Name: "players/comms errors", Program: "players", Marks: 3, About: "EOF (exit 4) and bad messages (exit 5)"},
}
