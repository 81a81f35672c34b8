export { FAULT_CATALOGUE, FAULT_CODES, type FaultCode, type FaultEntry } from "./catalogue.ts";
export { didYouMean, type Fault, type FaultDetails, fault, faultText, formatFault, sortFaults } from "./fault.ts";
export { byCloseness, type MissOptions, missHint, nearest, nearestModels } from "./nearest.ts";
