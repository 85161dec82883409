/**
 * The site's script, inlined into the page: plain browser JavaScript (no
 * modules, no requests). It reads the inlined catalogue data and shows the
 * connectors that match the search and the filters.
 */
export const SCRIPT = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('catalogue-data').textContent);
  var search = document.getElementById('search');
  var category = document.getElementById('filter-category');
  var direction = document.getElementById('filter-direction');
  var approval = document.getElementById('filter-approval');
  var billable = document.getElementById('filter-billable');
  var count = document.getElementById('result-count');
  var empty = document.getElementById('empty');
  var index = data.connectors.map(function (entry) {
    var words = [entry.key, entry.name, entry.vendor || '', entry.summary, entry.category, entry.categoryLabel, entry.status, entry.package || '']
      .concat(entry.limitations)
      .concat(Object.keys(entry.dataTypes || {}));
    entry.operations.forEach(function (operation) {
      words.push(operation.key, operation.label, operation.description || '', operation.entity || '');
    });
    return {
      key: entry.key,
      text: words.join('\\n').toLowerCase(),
      category: entry.category,
      modes: entry.operations.map(function (operation) { return operation.mode; }),
      approval: entry.operations.some(function (operation) { return operation.approvalRequired; }),
      billable: entry.operations.some(function (operation) { return operation.billable === true; }),
      element: document.querySelector('li.connector[data-key="' + CSS.escape(entry.key) + '"]'),
    };
  });
  function matches(item, terms) {
    if (category.value && item.category !== category.value) return false;
    if (direction.value && item.modes.indexOf(direction.value) < 0) return false;
    if (approval.checked && !item.approval) return false;
    if (billable.checked && !item.billable) return false;
    return terms.every(function (term) { return item.text.indexOf(term) >= 0; });
  }
  function update() {
    var terms = search.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var shown = 0;
    index.forEach(function (item) {
      var visible = matches(item, terms);
      if (item.element) item.element.hidden = !visible;
      if (visible) shown += 1;
    });
    count.textContent = shown + ' of ' + index.length + ' connector' + (index.length === 1 ? '' : 's');
    empty.hidden = shown !== 0;
    document.body.setAttribute('data-shown', String(shown));
  }
  [search, category, direction, approval, billable].forEach(function (control) {
    control.addEventListener('input', update);
    control.addEventListener('change', update);
  });
  update();
})();
`;
