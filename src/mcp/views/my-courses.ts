import { viewDocument } from './document.js';
import { SYLLABUS_SCRIPT } from './my-course-syllabus.js';

/**
 * The view of list_my_courses: a table of the member's courses (title, progress as text and `<progress>`, access).
 * When the host proxies tool calls (`serverTools`), each title is a button that asks the host to call
 * get_my_course_syllabus for that course and shows its lectures below the table, and "Show more courses" follows the
 * tool's own paging; without it the table is all there is.
 */
const SCRIPT = String.raw`
var root = document.getElementById('view');
var detail = el('section', { id: 'detail', class: 'detail', 'aria-label': 'Lectures of the chosen course' });
var listing = { courses: [], totalCount: 0, nextCursor: null };
var openCourseId = null;
var courseButtons = new Map();

function openCourse(course) {
  openCourseId = course.id;
  courseButtons.forEach(function (button, id) { button.setAttribute('aria-expanded', id === course.id ? 'true' : 'false'); });
  showStatus(detail, 'Loading the lectures of ' + String(course.title) + '\u2026');
  viewBridge.callTool('get_my_course_syllabus', { course: course.id }).then(function (result) {
    if (openCourseId !== course.id) return;
    var outcome = structuredOf(result);
    if (outcome.error) return showStatus(detail, outcome.error);
    var syllabus = renderSyllabus(outcome.data, 2);
    detail.replaceChildren(syllabus);
    syllabus.querySelector('.syllabus-title').focus();
  }, function (error) {
    showStatus(detail, 'The lectures could not be loaded: ' + error.message);
  });
}

function courseName(course) {
  var title = String(course.title);
  if (!viewBridge.canCallTools()) return el('span', { class: 'course-title' }, [title]);
  var button = el('button', { type: 'button', class: 'course', 'aria-expanded': openCourseId === course.id ? 'true' : 'false', 'aria-controls': 'detail' }, [title]);
  button.addEventListener('click', function () { openCourse(course); });
  courseButtons.set(course.id, button);
  return button;
}

function courseRow(course) {
  return el('tr', {}, [
    el('th', { scope: 'row' }, [courseName(course)]),
    el('td', {}, [progressBlock(course.progress || {}, 'Progress in ' + String(course.title))]),
    el('td', {}, [accessText(course)])
  ]);
}

function moreButton() {
  var button = el('button', { type: 'button', class: 'more' }, ['Show more courses']);
  button.addEventListener('click', function () {
    button.disabled = true;
    viewBridge.callTool('list_my_courses', { cursor: listing.nextCursor }).then(function (result) {
      var outcome = structuredOf(result);
      if (outcome.error) return showStatus(detail, outcome.error);
      showPage(outcome.data, true);
    }, function (error) {
      button.disabled = false;
      showStatus(detail, 'More courses could not be loaded: ' + error.message);
    });
  });
  return button;
}

function render() {
  courseButtons.clear();
  var count = listing.totalCount;
  var parts = [el('h1', {}, ['My courses']), el('p', { class: 'muted' }, [count === 1 ? '1 course' : count + ' courses'])];
  if (listing.courses.length === 0) {
    parts.push(el('p', {}, ['You are not enrolled in any course yet.']));
  } else {
    parts.push(el('table', {}, [
      el('caption', {}, [viewBridge.canCallTools() ? 'Your progress in each course. Choose a course to see its lectures.' : 'Your progress in each course.']),
      el('thead', {}, [el('tr', {}, [el('th', { scope: 'col' }, ['Course']), el('th', { scope: 'col' }, ['Progress']), el('th', { scope: 'col' }, ['Access'])])]),
      el('tbody', {}, listing.courses.map(courseRow))
    ]));
  }
  if (listing.nextCursor !== null && viewBridge.canCallTools()) parts.push(el('p', {}, [moreButton()]));
  parts.push(detail);
  root.replaceChildren.apply(root, parts);
}

function showPage(data, append) {
  var courses = Array.isArray(data.courses) ? data.courses : [];
  listing.courses = append ? listing.courses.concat(courses) : courses;
  listing.totalCount = typeof data.totalCount === 'number' ? data.totalCount : listing.courses.length;
  var pageInfo = data.pageInfo || {};
  listing.nextCursor = pageInfo.hasNextPage && typeof pageInfo.nextCursor === 'string' ? pageInfo.nextCursor : null;
  render();
}

viewBridge.onNotification('ui/notifications/tool-input', function () {
  showStatus(root, 'Loading your courses\u2026');
});

viewBridge.onNotification('ui/notifications/tool-result', function (result) {
  var outcome = structuredOf(result);
  if (outcome.error) return showStatus(root, outcome.error);
  if (!Array.isArray(outcome.data.courses)) return showStatus(root, 'This result is not a list of courses.');
  showPage(outcome.data, false);
});

viewBridge.onNotification('ui/notifications/tool-cancelled', function () {
  showStatus(root, 'The request was cancelled.');
});

viewBridge.connect({ name: 'schoolgate-my-courses', version: '1.0.0' }).catch(function (error) {
  showStatus(root, 'This view could not connect to your assistant: ' + error.message);
});
`;

export const MY_COURSES_HTML = viewDocument({ title: 'My courses', script: `${SYLLABUS_SCRIPT}\n${SCRIPT}` });
