/**
 * The View side of the MCP Apps protocol, as browser JavaScript inlined into every view (src/mcp/views/document.ts).
 * The extension's own `App` class needs the MCP client and core packages (about 540 KB bundled), far too much for a
 * page read on every render; what a view must do is small: JSON-RPC 2.0 over `postMessage` with the host.
 *
 * - `ui/initialize` (appInfo, appCapabilities, protocolVersion) → the host's capabilities and context, then
 *   `ui/notifications/initialized`;
 * - the host's notifications (`tool-input`, `tool-result`, `tool-cancelled`, `host-context-changed`) go to the
 *   handlers the view registers; its requests `ping` and `ui/resource-teardown` are answered, any other with -32601;
 * - `ui/notifications/size-changed` whenever the rendered size changes (the host sizes the iframe from it);
 * - the host's theme (`data-theme`, `color-scheme`) and style variables are applied (CSSOM only: the view's CSP allows
 *   no style attribute and no further style element), so colours follow light and dark.
 *
 * Only messages whose source is the parent window are read: nothing else may drive the view. The host's origin is
 * unknown to a sandboxed document (its own origin is opaque), so messages are posted to `*`; they carry nothing but
 * the view's own requests.
 *
 * Exposes to the view script: `viewBridge.connect(appInfo)`, `viewBridge.onNotification(method, handler)`,
 * `viewBridge.callTool(name, args)`, `viewBridge.canCallTools()`, `viewBridge.hostContext()`.
 */
export const BRIDGE_SCRIPT = String.raw`
var viewBridge = (function () {
  var PROTOCOL_VERSION = '2026-01-26';
  var VARIABLE_NAME = /^--[a-z0-9-]+$/;
  var nextRequestId = 1;
  var pending = new Map();
  var notificationHandlers = new Map();
  var hostRequests = new Map([
    ['ping', function () { return {}; }],
    ['ui/resource-teardown', function () { return {}; }]
  ]);
  var host = { capabilities: {}, context: {} };

  function post(message) {
    message.jsonrpc = '2.0';
    window.parent.postMessage(message, '*');
  }

  function request(method, params) {
    var id = nextRequestId;
    nextRequestId += 1;
    return new Promise(function (resolve, reject) {
      pending.set(id, { resolve: resolve, reject: reject });
      post({ id: id, method: method, params: params });
    });
  }

  function notify(method, params) {
    post(params === undefined ? { method: method } : { method: method, params: params });
  }

  function isObject(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  }

  function applyHostContext(context) {
    if (!isObject(context)) return;
    Object.keys(context).forEach(function (key) { host.context[key] = context[key]; });
    var root = document.documentElement;
    if (context.theme === 'light' || context.theme === 'dark') {
      root.setAttribute('data-theme', context.theme);
      root.style.colorScheme = context.theme;
    }
    var variables = isObject(context.styles) && isObject(context.styles.variables) ? context.styles.variables : null;
    if (variables !== null) {
      Object.keys(variables).forEach(function (name) {
        if (VARIABLE_NAME.test(name) && typeof variables[name] === 'string') root.style.setProperty(name, variables[name]);
      });
    }
    var dimensions = context.containerDimensions;
    if (isObject(dimensions)) root.classList.toggle('fixed-height', typeof dimensions.height === 'number');
  }

  function watchSize() {
    var scheduled = false;
    var lastWidth = -1;
    var lastHeight = -1;
    function measure() {
      if (scheduled) return;
      scheduled = true;
      requestAnimationFrame(function () {
        scheduled = false;
        var root = document.documentElement;
        var height = root.style.height;
        root.style.height = 'max-content';
        var measured = Math.ceil(root.getBoundingClientRect().height);
        root.style.height = height;
        var width = Math.ceil(window.innerWidth);
        if (width === lastWidth && measured === lastHeight) return;
        lastWidth = width;
        lastHeight = measured;
        notify('ui/notifications/size-changed', { width: width, height: measured });
      });
    }
    measure();
    var observer = new ResizeObserver(measure);
    observer.observe(document.documentElement);
    observer.observe(document.body);
  }

  function answerHostRequest(message) {
    var answer = hostRequests.get(message.method);
    if (answer === undefined) post({ id: message.id, error: { code: -32601, message: 'Method not found: ' + message.method } });
    else post({ id: message.id, result: answer(message.params) });
  }

  window.addEventListener('message', function (event) {
    if (event.source !== window.parent) return;
    var message = event.data;
    if (!isObject(message) || message.jsonrpc !== '2.0') return;
    var hasId = typeof message.id === 'string' || typeof message.id === 'number';
    if (typeof message.method === 'string') {
      if (hasId) return answerHostRequest(message);
      var handler = notificationHandlers.get(message.method);
      if (handler !== undefined) handler(isObject(message.params) ? message.params : {});
      return;
    }
    if (!hasId || !pending.has(message.id)) return;
    var waiting = pending.get(message.id);
    pending.delete(message.id);
    if (isObject(message.error)) waiting.reject(new Error(typeof message.error.message === 'string' ? message.error.message : 'the host refused the request'));
    else waiting.resolve(message.result);
  });

  notificationHandlers.set('ui/notifications/host-context-changed', applyHostContext);

  return {
    connect: function (appInfo) {
      return request('ui/initialize', { appInfo: appInfo, appCapabilities: { availableDisplayModes: ['inline'] }, protocolVersion: PROTOCOL_VERSION }).then(function (result) {
        var answer = isObject(result) ? result : {};
        host.capabilities = isObject(answer.hostCapabilities) ? answer.hostCapabilities : {};
        applyHostContext(answer.hostContext);
        notify('ui/notifications/initialized');
        watchSize();
      });
    },
    onNotification: function (method, handler) {
      notificationHandlers.set(method, handler);
    },
    canCallTools: function () {
      return isObject(host.capabilities.serverTools);
    },
    callTool: function (name, args) {
      return request('tools/call', { name: name, arguments: args });
    },
    hostContext: function () {
      return host.context;
    }
  };
})();
`;
