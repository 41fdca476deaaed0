package stratego

import "gauntlet/games/contract"

// Categories are the marking categories of the Stratego AI suite (20 marks): an AI is
// judged live (games/judge), so any legal play passes. Program "ai" is the AI a submission
// builds.
var Categories = []contract.Category{
	{Name: "ai/setup", Program: "ai", Marks: 4, About: "four rows of ten placing exactly the 40 pieces, as RED and as BLUE"},
	{Name: "ai/play", Program: "ai", Marks: 12, About: "whole games against the reference AIs, every move legal and in time"},
	{Name: "ai/end", Program: "ai", Marks: 4, About: "exit 0 promptly on QUIT, whenever it comes"},
}
