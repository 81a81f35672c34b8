/** The journal fact a check keeps: the path of the script its visit ran (read back by `pi-flows record`). */
export const CHECK_SCRIPT = "script";
