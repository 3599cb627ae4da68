#include "schedule/schedule_printer.h"

#include <isl/printer.h>
#include <isl/schedule.h>

#include <cstdlib>

namespace polyfuse {

std::string schedule_to_text(const isl::schedule& schedule) {
  isl_printer* printer = isl_printer_to_str(schedule.ctx().get());
  printer = isl_printer_set_yaml_style(printer, ISL_YAML_STYLE_BLOCK);
  printer = isl_printer_print_schedule(printer, schedule.get());
  char* text = isl_printer_get_str(printer);
  std::string result = text ? text : "";
  std::free(text);
  isl_printer_free(printer);
  if (!result.empty() && result.back() != '\n') result += '\n';
  return result;
}

}  // namespace polyfuse
