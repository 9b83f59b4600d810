// Package timeline writes a plan's kept ranges as edit timelines that open in
// real editors: FCPXML, Premiere XML (xmeml), CMX 3600 EDL, OTIO and CSV.
// All five writers consume one frame list, so they always describe the same cut:
// record positions are the plan's running total of kept time rounded to the
// nearest frame, a tie rounding down (never sums of separately rounded clips,
// so every record edge is within half a frame of the rendered cut however many
// clips it has); a clip's source in is the frame nearest its kept range's start
// and its length the difference of consecutive record positions, clamped to the
// media's last whole frame (a video's picture, not its audio). A recording of
// several tracks (WriteTracks, WriteFilesTracks) is cut alike on every track,
// each up to its own media's end.
package timeline
