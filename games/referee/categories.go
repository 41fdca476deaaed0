package referee

import "gauntlet/games/contract"

// Categories are the marking categories of the referee-protocol suite (30 marks): the
// example games' referees (tic-tac-toe: its handshake, its invalid moves, and its ends, a
// win along every kind of line and a draw; connect four, with write_lines and
// no_last_move), and players of both example games, judged live.
var Categories = []contract.Category{
	{Name: "referee/handshake", Program: "ttt-referee", Marks: 2, About: "features, feature_end, the players read, a first verdict"},
	{Name: "referee/verdicts", Program: "ttt-referee", Marks: 4, About: "invalid for an occupied cell, a move out of turn, a cell off the board, malformed moves"},
	{Name: "referee/ends", Program: "ttt-referee", Marks: 6, About: "valid end and the scores: wins along rows, columns and both diagonals, a win on the ninth cell, a draw"},
	{Name: "referee/connect-four", Program: "c4-referee", Marks: 6, About: "features in either order, the board in write_lines blocks, wins across, down and along both diagonals, a draw, a full column, bad moves"},
	{Name: "player/tic-tac-toe", Program: "ttt-player", Marks: 8, About: "whole games in both seats against the random and the perfect player, every move valid"},
	{Name: "player/connect-four", Program: "c4-player", Marks: 4, About: "whole games with write_lines and no_last_move, every move valid"},
}
