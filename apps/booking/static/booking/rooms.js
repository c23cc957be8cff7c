// The room booking form (rooms_book.html): when the start time moves to or past the end time,
// the end follows it, half an hour later. Without this script the form posts what is chosen
// and the server says when the end is not after the start.
(function () {
  "use strict";

  document.addEventListener("change", function (event) {
    var start = event.target;
    if (!start.matches || !start.matches("[data-room-start]")) return;
    var end = start.form && start.form.querySelector("[data-room-end]");
    if (!end || end.value > start.value) return;
    var times = Array.prototype.map.call(end.options, function (option) {
      return option.value;
    });
    var later = times.filter(function (time) {
      return time > start.value;
    });
    if (later.length) end.value = later[Math.min(1, later.length - 1)];
  });
})();
