import { defineResource } from '../resource.js';
import { getSchoolProfile } from '../tools/public/school-profile.js';
import { JSON_MIME_TYPE, jsonContents, toolResult, TTL } from './tool-content.js';

/** `school://{host}/profile`: the school itself, as get_school_profile returns it. */
export const schoolProfileResource = defineResource({
  name: 'school-profile',
  title: 'School profile',
  description:
    'About this school: name, description, contact e-mail, time zone and currency, lecturers, and how many published courses, upcoming public events and consulting services it offers. The same JSON as the get_school_profile tool. Public: no sign-in needed.',
  mimeType: JSON_MIME_TYPE,
  path: '/profile',
  scopes: [],
  ttlMs: TTL.profile,
  async read(context, uri) {
    return jsonContents(uri, await toolResult(getSchoolProfile, {}, context));
  },
});
