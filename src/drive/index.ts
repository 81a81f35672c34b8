export { type DriveEnd, type DriveOptions, type DriveTurn, drive } from "./drive.ts";
