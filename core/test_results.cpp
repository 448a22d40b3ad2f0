#include "core/test_results.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fstream>

#include "core/exit_codes.h"
#include "core/test_suite.h"
#include "core/utf8.h"

namespace fxsim {

std::string FrameCheck::label() const {
  return layer.empty() ? fmt::format("frame {}", frame) : fmt::format("frame {} {}", frame, layer);
}

namespace fs = std::filesystem;

const char* status_name(CheckStatus s) {
  switch (s) {
    case CheckStatus::pass: return "PASS";
    case CheckStatus::warn: return "WARN";
    case CheckStatus::fail: return "FAIL";
    case CheckStatus::missing: return "MISSING";
    case CheckStatus::updated: return "UPDATED";
  }
  return "?";
}

bool SceneCheck::failed() const {
  if (!render_error.empty()) return true;
  for (const auto& f : frames)
    if (fxsim::failed(f.status)) return true;
  return (hashes && fxsim::failed(hashes->status)) || (cpu_hashes && fxsim::failed(cpu_hashes->status));
}

bool SceneCheck::warned() const {
  for (const auto& f : frames)
    if (f.status == CheckStatus::warn) return true;
  return false;
}

namespace {
// A difference or threshold in steps: "3/255" for 8-bit images, "3/65535" for
// 16-bit layers (compared in their own steps).
std::string steps(double x, int bits = 8) {
  if (std::isinf(x)) return "any";
  const double s = x * 255;
  const char* scale = bits == 16 ? "65535" : "255";
  return std::abs(s - std::round(s)) < 0.01 ? fmt::format("{}/{}", std::lround(s), scale) : fmt::format("{:g}", x);
}

std::string xml_escape(const std::string& text) {
  // (A scene file's name need not be UTF-8; XML and HTML hold text: such bytes become U+FFFD.)
  const std::string s = valid_utf8(text);
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // Control characters other than tab and newline are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') out += ' ';
        else out += c;
    }
  }
  return out;
}

std::string html_escape(const std::string& s) { return xml_escape(s); }

std::string tolerance_text(const CompareThresholds& t) {
  return fmt::format("a pixel fails above {}; at most {} % may; warn above {} for {} %{}", steps(t.fail), t.fail_percent,
                     steps(t.warn), t.warn_percent,
                     std::isinf(t.hard_fail) ? std::string() : "; none above " + steps(t.hard_fail));
}
}  // namespace

std::string describe_comparison(const ImageComparison& c, const CompareThresholds& t) {
  if (!c.same_size())
    return fmt::format("sizes differ: golden {}x{}, actual {}x{}", c.width_a, c.height_a, c.width_b, c.height_b);
  // A warning names the warn figures that made it (the fail ones pass).
  const std::string warned = c.verdict != CompareVerdict::warning ? std::string()
                             : fmt::format("; warned: {:.2f} % over {} ({} % allowed{})", c.warn_percent(),
                                           steps(t.warn, c.bits), t.warn_percent,
                                           std::isinf(t.hard_warn) ? std::string() : ", none above " + steps(t.hard_warn, c.bits));
  // A failure by `hardfail` alone says so (its figures read as a pass).
  const std::string hard = c.verdict == CompareVerdict::failure && c.max > t.hard_fail
                               ? fmt::format("; over the hard limit of {} for any pixel", steps(t.hard_fail, c.bits))
                               : std::string();
  return fmt::format("max {} at ({}, {}), {:.2f} % of pixels over {} ({} % allowed), PSNR {}{}{}", steps(c.max, c.bits),
                     c.max_x, c.max_y, c.fail_percent(), steps(t.fail, c.bits), t.fail_percent,
                     std::isinf(c.psnr) ? "inf" : fmt::format("{:.1f} dB", c.psnr), hard, warned);
}

std::string junit_xml(const std::vector<SuiteCheck>& suites) {
  // A check whose result differs is a failure; a render that did not finish
  // (no result to check) is an error, as JUnit's readers tell them apart.
  int tests_all = 0, failures_all = 0, errors_all = 0;
  double time_all = 0;
  std::string body;
  for (const SuiteCheck& suite : suites) {
    int tests = 0, failures = 0, errors = 0;
    std::string cases;
    for (const SceneCheck& scene : suite.scenes) {
      const std::string classname = xml_escape(suite.name + "." + scene.name);
      const auto add = [&](const std::string& name, bool failing, const std::string& type, const std::string& message,
                           double seconds, bool skipped = false, bool error = false) {
        ++tests;
        cases += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\">", classname, xml_escape(name),
                             seconds);
        if (failing) {
          ++(error ? errors : failures);
          cases += fmt::format("\n      <{0} type=\"{1}\" message=\"{2}\">{2}</{0}>\n    ", error ? "error" : "failure",
                               type, xml_escape(message));
        } else if (skipped) {
          cases += fmt::format("\n      <skipped message=\"{}\"/>\n    ", xml_escape(message));
        } else if (!message.empty()) {
          cases += fmt::format("\n      <system-out>{}</system-out>\n    ", xml_escape(message));
        }
        cases += "</testcase>\n";
      };
      const double each = scene.seconds / double(std::max<size_t>(1, scene.frames.size()));
      if (!scene.render_error.empty()) add("render", true, "render", scene.render_error, scene.seconds, false, true);
      for (const FrameCheck& f : scene.frames)
        add(std::filesystem::path(golden_frame_name(f.frame, f.layer)).stem().string(), failed(f.status), f.status == CheckStatus::missing ? "missing" : "image",
            fmt::format("{}: {}", status_name(f.status), f.message), each);
      if (scene.hashes)
        add("state-hashes", failed(scene.hashes->status), "hashes",
            fmt::format("{}: {}", status_name(scene.hashes->status), scene.hashes->message), 0);
      if (scene.cpu_hashes)
        add("state-hashes-cpu", failed(scene.cpu_hashes->status), "hashes",
            fmt::format("{}: {}", status_name(scene.cpu_hashes->status), scene.cpu_hashes->message), 0);
    }
    if (!suite.stopped.empty()) {
      ++tests, ++errors;
      cases += fmt::format("    <testcase classname=\"{0}\" name=\"run\" time=\"0.000\">\n      <error type=\"stopped\" "
                           "message=\"{1}\">{1}</error>\n    </testcase>\n",
                           xml_escape(suite.name), xml_escape(suite.stopped));
    }
    body += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{:.3f}\">\n"
                        "    <properties>\n      <property name=\"device_class\" value=\"{}\"/>\n"
                        "      <property name=\"device_class_exact\" value=\"{}\"/>\n    </properties>\n{}  </testsuite>\n",
                        xml_escape(suite.name), tests, failures, errors, suite.seconds, xml_escape(suite.device.base),
                        xml_escape(suite.device.exact), cases);
    tests_all += tests;
    failures_all += failures;
    errors_all += errors;
    time_all += suite.seconds;
  }
  return fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"fxsim test\" tests=\"{}\" "
                     "failures=\"{}\" errors=\"{}\" time=\"{:.3f}\">\n{}</testsuites>\n",
                     tests_all, failures_all, errors_all, time_all, body);
}

nlohmann::json results_json(const std::vector<SuiteCheck>& suites) {
  nlohmann::json out = nlohmann::json::array();
  for (const SuiteCheck& suite : suites) {
    nlohmann::json s{{"suite", suite.name}, {"goldens", suite.goldens.string()}, {"device_class", suite.device.base},
                     {"device_class_exact", suite.device.exact}, {"seconds", suite.seconds},
                     {"scenes", nlohmann::json::array()}};
    if (!suite.stopped.empty()) s["stopped"] = suite.stopped;
    for (const SceneCheck& scene : suite.scenes) {
      nlohmann::json sc{{"name", scene.name}, {"scene", scene.scene}, {"backend", scene.backend},
                        {"passed", !scene.failed()}, {"seconds", scene.seconds}, {"frames", nlohmann::json::array()}};
      if (!scene.render_error.empty()) sc["render_error"] = scene.render_error;
      for (const FrameCheck& f : scene.frames) {
        nlohmann::json fj{{"frame", f.frame}, {"status", status_name(f.status)}, {"golden_set", f.golden_set},
                          {"golden", f.golden.string()}, {"message", f.message}};
        if (!f.layer.empty()) fj["layer"] = f.layer;
        if (f.comparison.pixels) {
          fj["max"] = f.comparison.max;
          fj["bits"] = f.comparison.bits;  // a step of max: 1/255 (8) or 1/65535 (16: depth and motion layers)
          fj["mean"] = f.comparison.mean;
          fj["fail_percent"] = f.comparison.fail_percent();
        }
        sc["frames"].push_back(fj);
      }
      if (scene.hashes) sc["hashes"] = {{"status", status_name(scene.hashes->status)}, {"message", scene.hashes->message}};
      if (scene.cpu_hashes)
        sc["cpu_hashes"] = {{"status", status_name(scene.cpu_hashes->status)}, {"message", scene.cpu_hashes->message}};
      s["scenes"].push_back(sc);
    }
    out.push_back(s);
  }
  return out;
}

void write_html_report(const std::vector<SuiteCheck>& suites, const fs::path& dir) {
  fs::create_directories(dir / "images");
  // A report folder used before: its images of that run (NNNN_NAME.png,
  // four digits or more) go, so that what is there is this run's (a CI
  // artefact kept the old ones beside); nothing else there is touched.
  for (const auto& entry : fs::directory_iterator(dir / "images")) {
    const std::string name = entry.path().filename().string();
    const size_t digits = name.find_first_not_of("0123456789");
    if (entry.is_regular_file() && digits >= 4 && digits != std::string::npos && name[digits] == '_' &&
        entry.path().extension() == ".png")
      fs::remove(entry.path());
  }
  int copied = 0;
  const auto copy = [&](const fs::path& from) -> std::string {
    if (from.empty() || !fs::exists(from)) return "";
    const std::string name = fmt::format("{:04}_{}", copied++, from.filename().string());
    fs::copy_file(from, dir / "images" / name, fs::copy_options::overwrite_existing);
    return "images/" + name;
  };
  int scenes = 0, failing = 0, stopped = 0;
  std::string failures, passing, summary;
  for (const SuiteCheck& suite : suites) {
    if (!suite.stopped.empty()) {
      ++stopped;
      failures += fmt::format("<section class=\"case\"><h3>{}: the run stopped before its scenes were checked</h3>"
                              "<pre>{}</pre></section>\n", html_escape(suite.name), html_escape(suite.stopped));
    }
    for (const SceneCheck& scene : suite.scenes) {
      ++scenes;
      failing += scene.failed();
      summary += fmt::format("<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                             scene.failed() ? "fail" : "pass", html_escape(suite.name), html_escape(scene.name),
                             scene.failed() ? "FAIL" : scene.warned() ? "WARN" : "PASS", html_escape(scene.backend),
                             html_escape(tolerance_text(scene.tolerance)));
      if (!scene.render_error.empty())
        failures += fmt::format("<section class=\"case\"><h3>{} / {}: the render failed</h3><pre>{}</pre></section>\n",
                                html_escape(suite.name), html_escape(scene.name), html_escape(scene.render_error));
      for (const auto* h : {&scene.hashes, &scene.cpu_hashes})
        if (*h && failed((*h)->status))
          failures += fmt::format("<section class=\"case\"><h3>{} / {}: {}</h3><p>{}</p></section>\n",
                                  html_escape(suite.name), html_escape(scene.name),
                                  h == &scene.hashes ? "state hashes" : "CPU state hashes", html_escape((*h)->message));
      for (const FrameCheck& f : scene.frames) {
        const std::string title = fmt::format("{} / {} / {}", suite.name, scene.name, f.label());
        if (!failed(f.status)) {
          passing += fmt::format("<figure><img src=\"{}\" alt=\"{}\"><figcaption>{} {}</figcaption></figure>\n",
                                 copy(f.actual), html_escape(title), status_name(f.status), html_escape(title));
          continue;
        }
        const std::string golden = copy(f.golden), actual = copy(f.actual), diff = copy(f.diff);
        const auto panel = [](const std::string& src, const std::string& label, const std::string& instead = "") {
          return src.empty() ? fmt::format("<figure class=\"none\"><div>{}</div><figcaption>{}</figcaption></figure>",
                                           instead.empty() ? "no " + label : html_escape(instead), label)
                             : fmt::format("<figure><img src=\"{}\" alt=\"{}\"><figcaption>{}</figcaption></figure>", src,
                                           label, label);
        };
        const std::string flip =
            golden.empty() || actual.empty()
                ? std::string()
                : fmt::format("<figure class=\"flip\"><img src=\"{0}\" data-a=\"{0}\" data-b=\"{1}\" alt=\"flip\">"
                              "<figcaption><button onclick=\"flip(this)\">flip: golden</button></figcaption></figure>",
                              golden, actual);
        failures += fmt::format("<section class=\"case\"><h3>{}: {}</h3><p>{} (golden: {})</p><div class=\"row\">{}{}{}{}"
                                "</div></section>\n",
                                html_escape(title), status_name(f.status), html_escape(f.message),
                                html_escape(f.golden_set), panel(golden, "golden"), panel(actual, "actual"),
                                panel(diff, "difference",
                                      f.comparison.same_size()
                                          ? ""
                                          : fmt::format("sizes differ: {}×{} and {}×{}", f.comparison.width_a,
                                                        f.comparison.height_a, f.comparison.width_b,
                                                        f.comparison.height_b)),
                                flip);
      }
    }
  }
  std::string devices;
  for (const SuiteCheck& suite : suites)
    devices += fmt::format("{} on {} ({}) ", html_escape(suite.name), html_escape(suite.device.base),
                           html_escape(suite.device.exact));
  const std::string title = stopped ? std::string("fxsim test: stopped before its scenes were checked")
                                    : fmt::format("fxsim test: {} of {} scenes failed", failing, scenes);
  const std::string page = fmt::format(R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{0}</title>
<style>
body {{ font: 14px/1.4 system-ui, sans-serif; margin: 24px; background: #15171c; color: #e6e6e6; }}
h1 {{ font-size: 20px; }} h3 {{ margin: 0 0 6px; font-size: 15px; }}
table {{ border-collapse: collapse; margin-bottom: 24px; }} td, th {{ padding: 3px 10px; border-bottom: 1px solid #333; text-align: left; }}
tr.fail td:nth-child(3) {{ color: #ff6b6b; font-weight: bold; }} tr.pass td:nth-child(3) {{ color: #6bd66b; }}
.case {{ background: #1e2128; padding: 12px; margin-bottom: 16px; border-left: 4px solid #ff6b6b; }}
.row {{ display: flex; gap: 12px; flex-wrap: wrap; }} figure {{ margin: 0; }}
.row img {{ width: 250px; image-rendering: pixelated; border: 1px solid #444; }}
.none div {{ width: 250px; height: 141px; display: flex; align-items: center; justify-content: center; border: 1px dashed #555; }}
.thumbs {{ display: flex; flex-wrap: wrap; gap: 8px; }} .thumbs img {{ width: 160px; border: 1px solid #333; }}
figcaption {{ font-size: 12px; color: #aaa; }} button {{ font: inherit; }}
</style>
<script>function flip(b) {{ const img = b.closest('figure').querySelector('img');
  const golden = img.src.endsWith(img.dataset.a); img.src = golden ? img.dataset.b : img.dataset.a;
  b.textContent = golden ? 'flip: actual' : 'flip: golden'; }}</script></head>
<body><h1>{0}</h1><p>{1}</p>
<table><tr><th>suite</th><th>scene</th><th>result</th><th>backend</th><th>tolerance</th></tr>
{2}</table>
<h2>Failures</h2>
{3}
<h2>Passing frames</h2><div class="thumbs">{4}</div>
</body></html>
)",
                                       title, devices, summary, failures.empty() ? "<p>none</p>" : failures, passing);
  std::ofstream out(dir / "index.html");
  out << page;
  if (!out) throw FxError(ExitCode::cannot_write, fmt::format("{}: cannot write the report", (dir / "index.html").string()));
}

}  // namespace fxsim
