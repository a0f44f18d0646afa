/** zenmux-emulator: start the ZenMux Emulator from a Node test suite and give each test a session of its own. */

export { Control, ControlError } from "./control.js";
export { Emulator, INSTALL_HINT, resolveCommand, startEmulator, type FaceInfo, type StartOptions } from "./emulator.js";
export { isUnmatched, lastUser, whyFirst, type JournalEntry, type NearMiss } from "./report.js";
export { Session, keyFor, sessionOfKey, type Finding, type Rule } from "./session.js";
