export { startDescriptSimulator, type DescriptSimulator, type DriveHandle, type SimulatorState } from './simulator.js';
export type { DescriptSimulatorOptions, OtherDriveOptions } from './options.js';
export type { PublishState } from './drive/model.js';
export type { Fault } from './http/faults.js';
export type { RateLimit } from './http/rate-limit.js';
export type { RecordedRequest } from './http/request-log.js';
export { loadOpenApi, type OpenApiDocument, type RequestToCheck } from './openapi/document.js';
export { openApiReference, type OpenApiReference } from './openapi/reference.js';
