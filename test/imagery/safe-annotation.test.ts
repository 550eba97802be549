/**
 * parseAnnotation parses only the elements it reads (src/imagery/safe/annotation.ts): on every
 * real annotation here the result equals that of parsing the whole document, and a document it
 * cannot cut plainly is parsed whole.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAnnotation } from '../../src/imagery/index.ts';
import { DATA, NORTH_SEA_SAFE, ROME_SAFE } from './fixtures.ts';

const annotations = [
  join(NORTH_SEA_SAFE, 'annotation/s1a-iw-grd-vh-20220612t173329-20220612t173354-043633-05359a-002.xml'),
  join(NORTH_SEA_SAFE, 'annotation/s1a-iw-grd-vv-20220612t173329-20220612t173354-043633-05359a-001.xml'),
  join(ROME_SAFE, 'annotation/s1b-iw-grd-vv-20211223t051122-20211223t051147-030148-039993-001.xml'),
  join(DATA, 'slc-subset/test/testData/s1a-iw3-slc-vv-20220918t074921-20220918t074946-045056-056232-006.xml'),
];

// A comment anywhere makes parseAnnotation parse the whole document (it cuts only plain XML).
const whole = (xml: string) => `${xml}\n<!-- parsed whole -->\n`;

describe('parseAnnotation reads only what it needs', () => {
  it.each(annotations)('%s: the same annotation as parsing the whole document', (path) => {
    const xml = readFileSync(path, 'utf8');
    expect(parseAnnotation(xml, path)).toEqual(parseAnnotation(whole(xml), path));
  });

  it('does not parse the lists it does not read: a broken orbit list is not seen, unless the document is parsed whole', () => {
    const xml = readFileSync(annotations[0]!, 'utf8').replace(/<orbitList count="\d+">/, '$&<unclosed attr="');
    expect(parseAnnotation(xml).geolocationGrid).toHaveLength(210);
    expect(() => parseAnnotation(whole(xml))).toThrow(/cannot parse/);
  });

  it('parses a document with a repeated or missing element whole, with the same results and errors as before', () => {
    const xml = readFileSync(annotations[2]!, 'utf8');
    const twoGrids = xml.replace(/<\/product>\s*$/, '<geolocationGrid></geolocationGrid></product>');
    expect(() => parseAnnotation(twoGrids)).not.toThrow();
    expect(parseAnnotation(twoGrids)).toEqual(parseAnnotation(whole(twoGrids)));
    const noHeader = xml.replace(/<adsHeader>[\s\S]*?<\/adsHeader>/, '');
    expect(() => parseAnnotation(noHeader)).toThrow(/adsHeader\/missionId/);
  });
});
