/**
 * Browser JavaScript shared by the views: building elements, formatting, reading a tool result. Every text the data
 * carries reaches the page as a text node (`textContent`, `append` of a string) or an attribute set with
 * `setAttribute` on a name written here (never a URL or an event handler): no markup is ever parsed from data, so
 * a course title such as `<img onerror=…>` shows as those characters.
 */
export const DOM_SCRIPT = String.raw`
function el(tag, attributes, children) {
  var node = document.createElement(tag);
  Object.keys(attributes || {}).forEach(function (name) {
    node.setAttribute(name, String(attributes[name]));
  });
  (children || []).forEach(function (child) {
    if (child === null || child === undefined || child === false) return;
    node.append(typeof child === 'string' || typeof child === 'number' ? String(child) : child);
  });
  return node;
}

function formatDate(value) {
  if (typeof value !== 'string') return '';
  var date = new Date(value);
  if (isNaN(date.getTime())) return value;
  var context = viewBridge.hostContext();
  var options = { dateStyle: 'medium' };
  if (typeof context.timeZone === 'string') options.timeZone = context.timeZone;
  try {
    return new Intl.DateTimeFormat(typeof context.locale === 'string' ? context.locale : undefined, options).format(date);
  } catch (error) {
    return date.toISOString().slice(0, 10);
  }
}

function formatDuration(seconds) {
  var total = Math.max(0, Math.round(Number(seconds) || 0));
  if (total < 60) return total + ' s';
  var minutes = Math.round(total / 60);
  if (minutes < 60) return minutes + ' min';
  var hours = Math.floor(minutes / 60);
  return hours + ' h' + (minutes % 60 === 0 ? '' : ' ' + (minutes % 60) + ' min');
}

function formatPosition(seconds) {
  var total = Math.max(0, Math.floor(Number(seconds) || 0));
  var minutes = Math.floor(total / 60);
  var rest = total % 60;
  return minutes + ':' + (rest < 10 ? '0' : '') + rest;
}

function progressText(progress) {
  var total = Number(progress.totalLecturesCount) || 0;
  var done = Number(progress.completedLecturesCount) || 0;
  var percent = Math.round((Number(progress.completionRate) || 0) * 100);
  return done + ' of ' + total + (total === 1 ? ' lecture' : ' lectures') + ' completed (' + percent + '%)';
}

function progressBlock(progress, label) {
  var bar = el('progress', { 'aria-label': label });
  bar.max = Math.max(1, Number(progress.totalLecturesCount) || 0);
  bar.value = Number(progress.completedLecturesCount) || 0;
  return el('div', { class: 'progress' }, [bar, el('span', { class: 'progress-text' }, [progressText(progress)])]);
}

function accessText(course) {
  if (course.hasLifetimeAccess) return 'Lifetime access';
  if (course.accessEnded) return 'Access ended ' + formatDate(course.expireDate);
  if (typeof course.expireDate === 'string') return 'Access until ' + formatDate(course.expireDate);
  return '';
}

function toolErrorText(result) {
  var text = Array.isArray(result.content) && result.content[0] && typeof result.content[0].text === 'string' ? result.content[0].text : '';
  try {
    var body = JSON.parse(text);
    if (body && typeof body.error_description === 'string') return body.error_description;
  } catch (error) {
    return text || 'The tool failed.';
  }
  return text || 'The tool failed.';
}

function structuredOf(result) {
  if (typeof result !== 'object' || result === null) return { error: 'The host sent no tool result.' };
  if (result.isError) return { error: toolErrorText(result) };
  if (typeof result.structuredContent === 'object' && result.structuredContent !== null) return { data: result.structuredContent };
  var first = Array.isArray(result.content) ? result.content[0] : null;
  try {
    return { data: JSON.parse(first && typeof first.text === 'string' ? first.text : '') };
  } catch (error) {
    return { error: 'The tool result has no data this view can show.' };
  }
}

function showStatus(container, text) {
  container.replaceChildren(el('p', { role: 'status' }, [text]));
}
`;
