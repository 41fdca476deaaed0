package dealer2310

import "gauntlet/games/contract"

// Categories are the spec's functionality marks ("Marks", 42 in all), one category per item
// of its list. Program is the spec name of the program the item grades.
var Categories = []contract.Category{
	{Name: "2310A/arg checking", Program: "2310A", Marks: 2, About: "Arg checking"},
	{Name: "2310A/initial path output", Program: "2310A", Marks: 2, About: "Initial path output"},
	{Name: "2310A/first move", Program: "2310A", Marks: 2, About: "Making first move"},
	{Name: "2310A/solo games", Program: "2310A", Marks: 2, About: "Complete games as solo player"},
	{Name: "2310A/multiplayer games", Program: "2310A", Marks: 2, About: "Complete games with multiple players"},
	{Name: "2310A/comms errors", Program: "2310A", Marks: 3, About: "Early disconnect and comms error handling"},
	{Name: "2310B/arg checking and path output", Program: "2310B", Marks: 2, About: "Arg checking and initial path output"},
	{Name: "2310B/initial move", Program: "2310B", Marks: 2, About: "Initial move"},
	{Name: "2310B/complete games", Program: "2310B", Marks: 4, About: "Complete games"},
	{Name: "2310B/comms errors", Program: "2310B", Marks: 1, About: "Early disconnect and coms error handling"},
	{Name: "dealer/argument checking", Program: "2310dealer", Marks: 2, About: "Argument checking"},
	{Name: "dealer/starting players", Program: "2310dealer", Marks: 2, About: "Starting player checks"},
	{Name: "dealer/games with 2310A players", Program: "2310dealer", Marks: 5, About: "Complete game with only 2310A players"},
	{Name: "dealer/games with any players", Program: "2310dealer", Marks: 9, About: "Complete game with unspecified players"},
	{Name: "dealer/comms errors and SIGHUP", Program: "2310dealer", Marks: 2, About: "Comms error handling, early disconnect and SIGHUP handling"},
}
