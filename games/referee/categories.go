package referee

import "gauntlet/games/contract"

// Categories are the marking categories of the referee-protocol suite (42 marks): a
// referee of any game probed part by part (protocol/...), the example games' referees
// (tic-tac-toe: its handshake, its invalid moves, and its ends, a win along every kind of
// line and a draw; connect four, with write_lines and no_last_move), and players of both
// example games, judged live.
var Categories = []contract.Category{
	{Name: "protocol/handshake", Program: "referee", Marks: 2, About: "feature lines, known features only, feature_end, in time"},
	{Name: "protocol/verdicts", Program: "referee", Marks: 2, About: "every answer to a move is valid, invalid or valid end, in time"},
	{Name: "protocol/blocks", Program: "referee", Marks: 2, About: "with write_lines, blocks of <0|1> <line> ended by write_end, after the names and every verdict"},
	{Name: "protocol/scores", Program: "referee", Marks: 2, About: "after valid end, a line of two integers"},
	{Name: "protocol/ending", Program: "referee", Marks: 2, About: "after invalid, or after the scores, nothing more and an exit once its input is closed"},
	{Name: "protocol/consistency", Program: "referee", Marks: 2, About: "the same moves in the same position get the same verdicts"},
	{Name: "referee/handshake", Program: "ttt-referee", Marks: 2, About: "features, feature_end, the players read, a first verdict"},
	{Name: "referee/verdicts", Program: "ttt-referee", Marks: 4, About: "invalid for an occupied cell, a move out of turn, a cell off the board, malformed moves"},
	{Name: "referee/ends", Program: "ttt-referee", Marks: 6, About: "valid end and the scores: wins along rows, columns and both diagonals, a win on the ninth cell, a draw"},
	{Name: "referee/connect-four", Program: "c4-referee", Marks: 6, About: "features in either order, the board in write_lines blocks, wins across, down and along both diagonals, a draw, a full column, bad moves"},
	{Name: "player/tic-tac-toe", Program: "ttt-player", Marks: 8, About: "whole games in both seats against the random and the perfect player, every move valid"},
	{Name: "player/connect-four", Program: "c4-player", Marks: 4, About: "whole games with write_lines and no_last_move, every move valid"},
}
