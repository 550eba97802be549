/**
 * Every upload state change, one guarded statement each (as src/jobs/transitions):
 * processing → ready | failed only from processing, so a deleted upload stays deleted and a
 * late validation changes nothing. Polygon, image and AIS uploads share the lifecycle (failed,
 * deleted); creation and readiness record what each kind has. The same statements run on
 * SQLite and PostgreSQL.
 */
export { createUpload } from './transitions/createUpload.ts';
export { markUploadReady } from './transitions/markUploadReady.ts';
export { markUploadFailed, type UploadTable } from './transitions/markUploadFailed.ts';
export { deleteUpload } from './transitions/deleteUpload.ts';
export { createTifUpload } from './transitions/createTifUpload.ts';
export { markTifReady } from './transitions/markTifReady.ts';
export { createAisUpload } from './transitions/createAisUpload.ts';
export { markAisReady } from './transitions/markAisReady.ts';
