export {
	type DriveEnd,
	type DriveOptions,
	type DriveResult,
	type DriveResume,
	type DriveTurn,
	drive,
	type TurnOutcome,
} from "./drive.ts";
export { currentPointerPath, type DriveEntry, journalPath, readDriveJournal } from "./journal.ts";
