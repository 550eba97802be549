/**
 * Every polygon-upload state change, one guarded statement each (as src/jobs/transitions):
 * processing → ready | failed only from processing, so a deleted upload stays deleted and a
 * late validation changes nothing. The same statements run on SQLite and PostgreSQL.
 */
export { createUpload } from './transitions/createUpload.ts';
export { markUploadReady } from './transitions/markUploadReady.ts';
export { markUploadFailed } from './transitions/markUploadFailed.ts';
export { deleteUpload } from './transitions/deleteUpload.ts';
