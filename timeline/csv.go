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

// writeCSV writes one RFC 4180 row per kept range (frames are at the edit
// rate; seconds are the frames' exact times).
func (e *edit) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	sec := func(f int64) string { return strconv.FormatFloat(FrameToSec(f, e.rate), 'f', 6, 64) }
	for i, s := range e.segs {
		if err := cw.Write([]string{strconv.Itoa(i + 1), neutralizeFormula(e.m.Path), sec(s.SrcIn), sec(s.SrcOut), sec(s.RecIn), sec(s.RecOut),
			sec(s.Len()), fmt.Sprint(s.SrcIn), fmt.Sprint(s.SrcOut), fmt.Sprint(s.RecIn), fmt.Sprint(s.RecOut), e.rate.String()}); err != nil {
			return err
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
