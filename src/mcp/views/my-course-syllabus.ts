import { viewDocument } from './document.js';

/**
 * Browser JavaScript: `renderSyllabus(result, headingLevel)` draws one get_my_course_syllabus result (course title,
 * progress as text and `<progress>`, next lecture, resume point, then every section as a heading and an ordered list
 * of its lectures with state, lock and duration in words). Shared by this view and the course drill-down of the
 * my-courses view.
 */
export const SYLLABUS_SCRIPT = String.raw`
var LECTURE_STATES = new Map([
  ['completed', { label: 'Completed', mark: '\u2713' }],
  ['read', { label: 'Started', mark: '\u25D0' }],
  ['unread', { label: 'Not started', mark: '\u25CB' }]
]);

function headingOf(level, text, attributes) {
  return el('h' + Math.min(6, level), attributes, [text]);
}

function lectureItem(lecture) {
  var state = LECTURE_STATES.has(lecture.state) ? lecture.state : 'unread';
  var details = [LECTURE_STATES.get(state).label];
  if (lecture.isLocked) details.push(typeof lecture.unlockAt === 'string' ? 'locked until ' + formatDate(lecture.unlockAt) : 'locked');
  if (Number(lecture.durationSeconds) > 0) details.push(formatDuration(lecture.durationSeconds));
  return el('li', { class: state + (lecture.isLocked ? ' locked' : '') }, [
    el('span', { class: 'mark', 'aria-hidden': 'true' }, [LECTURE_STATES.get(state).mark]),
    el('span', {}, [el('span', { class: 'lecture-title' }, [String(lecture.title)]), ' ', el('span', { class: 'meta' }, ['(' + details.join(', ') + ')'])])
  ]);
}

function sectionBlock(section, level) {
  var lectures = Array.isArray(section.lectures) ? section.lectures : [];
  var completed = lectures.filter(function (lecture) { return lecture.state === 'completed'; }).length;
  return el('section', {}, [
    headingOf(level, section.position + '. ' + String(section.title)),
    el('p', { class: 'muted' }, [completed + ' of ' + lectures.length + (lectures.length === 1 ? ' lecture' : ' lectures') + ' completed']),
    el('ol', { class: 'lectures' }, lectures.map(lectureItem))
  ]);
}

function renderSyllabus(data, level) {
  var course = data.course || {};
  var title = String(course.title || 'Course');
  var parts = [headingOf(level, title, { class: 'syllabus-title', tabindex: '-1' }), progressBlock(data.progress || {}, 'Progress in ' + title)];
  var access = accessText(course);
  if (access !== '') parts.push(el('p', { class: 'muted' }, [access]));
  if (data.nextUp) parts.push(el('p', {}, [el('strong', {}, ['Next up: ']), String(data.nextUp.lectureTitle) + ' (' + String(data.nextUp.sectionTitle) + ')']));
  if (data.resumeAt && typeof data.resumeAt.lectureTitle === 'string') {
    parts.push(el('p', {}, [el('strong', {}, ['Resume: ']), data.resumeAt.lectureTitle + ' at ' + formatPosition(data.resumeAt.positionSeconds)]));
  }
  (Array.isArray(data.sections) ? data.sections : []).forEach(function (section) {
    parts.push(sectionBlock(section, level + 1));
  });
  return el('div', { class: 'syllabus' }, parts);
}
`;

/** The view of get_my_course_syllabus: the result the host hands it, drawn by renderSyllabus. */
const SCRIPT = String.raw`
var root = document.getElementById('view');

viewBridge.onNotification('ui/notifications/tool-input', function (params) {
  var course = params.arguments && params.arguments.course;
  showStatus(root, typeof course === 'string' ? 'Loading your progress in ' + course + '\u2026' : 'Loading your progress\u2026');
});

viewBridge.onNotification('ui/notifications/tool-result', function (result) {
  var outcome = structuredOf(result);
  if (outcome.error) return showStatus(root, outcome.error);
  if (!Array.isArray(outcome.data.sections)) return showStatus(root, 'This result is not the syllabus of a course.');
  root.replaceChildren(renderSyllabus(outcome.data, 1));
});

viewBridge.onNotification('ui/notifications/tool-cancelled', function () {
  showStatus(root, 'The request was cancelled.');
});

viewBridge.connect({ name: 'schoolgate-my-course-syllabus', version: '1.0.0' }).catch(function (error) {
  showStatus(root, 'This view could not connect to your assistant: ' + error.message);
});
`;

export const MY_COURSE_SYLLABUS_HTML = viewDocument({ title: 'My progress in a course', script: `${SYLLABUS_SCRIPT}\n${SCRIPT}` });
