package stratego

import "gauntlet/games/contract"

// Categories are the marking categories of the Stratego suite: an AI's (20 marks), judged
// live (games/judge), so any legal play passes; and a manager's (20 marks), against mock
// AIs. A submission builds "ai", "stratego" or both.
var Categories = []contract.Category{
	{Name: "manager/arguments", Program: "stratego", Marks: 2, About: "usage errors: exit 1 with a message on stderr; the AIs named by bare names (a PATH search, or paths only as in 2012)"},
	{Name: "manager/games", Program: "stratego", Marks: 8, About: "whole games of the reference AIs: the result line the engine gives"},
	{Name: "manager/faults", Program: "stratego", Marks: 10, About: "bad setups, silence, partial lines, malformed and illegal moves, a dying AI, surrender, an AI ignoring QUIT, CRLF: the outcome the protocol gives, and never a hang"},
	{Name: "ai/setup", Program: "ai", Marks: 4, About: "four rows of ten placing exactly the 40 pieces, as RED and as BLUE (the setup alone is marked)"},
	{Name: "ai/play", Program: "ai", Marks: 12, About: "whole games against the reference AIs, every move legal and in time"},
	{Name: "ai/end", Program: "ai", Marks: 4, About: "exit 0 promptly on QUIT, whenever it comes (another status, or a kill after the 2 s grace: PASS-LENIENT)"},
}
