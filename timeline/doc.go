// Package timeline writes a plan's kept ranges as edit timelines that open in
// real editors: FCPXML, Premiere XML (xmeml), CMX 3600 EDL, OTIO and CSV.
// All five writers consume one frame list, so they always describe the same cut:
// record positions are the plan's running total rounded to the frame (within
// half a frame of the rendered cut however many clips it has), and each clip's
// source is its record length centred on its kept range. A recording of several
// tracks (WriteTracks, WriteFilesTracks) is cut alike on every track.
package timeline
