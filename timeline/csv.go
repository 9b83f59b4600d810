package timeline

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// csvHeader is the CSV export's header row.
var csvHeader = []string{"index", "source", "src_in_s", "src_out_s", "rec_in_s", "rec_out_s", "duration_s",
	"src_in_frame", "src_out_frame", "rec_in_frame", "rec_out_frame", "rate"}

// csvTracksHeader is the header row of a CSV of several tracks: a track
// column (the track's number, from 1) after the index.
var csvTracksHeader = append([]string{"index", "track"}, csvHeader[1:]...)

// writeCSV writes one RFC 4180 row per kept range (frames are at the edit
// rate; seconds are the frames' exact times); with several tracks, each
// track's rows in turn, numbered in their track's column.
func (e *edit) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	multi := len(e.tracks) > 1
	header := csvHeader
	if multi {
		header = csvTracksHeader
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	sec := func(f int64) string { return strconv.FormatFloat(FrameToSec(f, e.rate), 'f', 6, 64) }
	for ti, tr := range e.tracks {
		for i, s := range tr.segs {
			row := []string{strconv.Itoa(i + 1), neutralizeFormula(tr.m.Path), sec(s.SrcIn), sec(s.SrcOut), sec(s.RecIn), sec(s.RecOut),
				sec(s.Len()), fmt.Sprint(s.SrcIn), fmt.Sprint(s.SrcOut), fmt.Sprint(s.RecIn), fmt.Sprint(s.RecOut), e.rate.String()}
			if multi {
				row = append([]string{row[0], strconv.Itoa(ti + 1)}, row[1:]...)
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// neutralizeFormula keeps a text cell from being read as a formula by a
// spreadsheet (CSV injection): a cell that starts with = + - @, a tab or a
// carriage return gets a leading apostrophe, as spreadsheet exporters do.
func neutralizeFormula(cell string) string {
	if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
		return "'" + cell
	}
	return cell
}
