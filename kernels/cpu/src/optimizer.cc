// The optimizer passes of the tensor-operation backend (seed §5.5).
#include "polyfuse/cpu/optimizer.h"

#include <algorithm>
#include <string>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace polyfuse::cpu {

std::vector<Dimension> dimensions_of(const TensorOperationConfig& c) {
  std::vector<Dimension> dims;
  for (size_t i = 0; i < c.dim_types.size(); ++i) {
    Dimension d;
    d.type = c.dim_types[i];
    d.exec = i < c.exec_types.size() ? c.exec_types[i] : ExecType::undefined;
    d.size = i < c.dim_sizes.size() ? c.dim_sizes[i] : 1;
    d.stride_in0 = i < c.strides_in0.size() ? c.strides_in0[i] : 0;
    d.stride_in1 = i < c.strides_in1.size() ? c.strides_in1[i] : 0;
    d.stride_out = i < c.strides_out.size() ? c.strides_out[i] : 0;
    dims.push_back(d);
  }
  return dims;
}

void set_dimensions(TensorOperationConfig& c, const std::vector<Dimension>& dims) {
  c.dim_types.clear(), c.exec_types.clear(), c.dim_sizes.clear();
  c.strides_in0.clear(), c.strides_in1.clear(), c.strides_out.clear();
  for (const Dimension& d : dims) {
    c.dim_types.push_back(d.type);
    c.exec_types.push_back(d.exec);
    c.dim_sizes.push_back(d.size);
    c.strides_in0.push_back(d.stride_in0);
    c.strides_in1.push_back(d.stride_in1);
    c.strides_out.push_back(d.stride_out);
  }
}

void fuse_dimensions(std::vector<Dimension>& dims, int64_t min_size) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i].size >= min_size) continue;
    for (size_t j = 0; j < dims.size(); ++j) {
      if (i == j) continue;
      Dimension& inner = dims[i];
      const Dimension& outer = dims[j];
      const bool exec_ok = inner.exec == outer.exec || inner.exec == ExecType::undefined ||
                           outer.exec == ExecType::undefined;
      if (inner.type == outer.type && exec_ok &&
          outer.stride_in0 == inner.size * inner.stride_in0 &&
          outer.stride_in1 == inner.size * inner.stride_in1 &&
          outer.stride_out == inner.size * inner.stride_out) {
        inner.size *= outer.size;
        if (inner.exec == ExecType::undefined) inner.exec = outer.exec;
        dims.erase(dims.begin() + static_cast<std::ptrdiff_t>(j));
        if (j < i) --i;
        j = static_cast<size_t>(-1);  // rescan: the fused dim may continue further
        if (dims[i].size >= min_size) break;
      }
    }
  }
}

namespace {

// Largest inner size that is a multiple of `divisor`, divides `size`, is <= max_size,
// and leaves both parts >= min_size; 0 if none.
int64_t best_inner(int64_t divisor, int64_t size, int64_t max_size, int64_t min_size) {
  for (int64_t inner = max_size / divisor * divisor; inner >= divisor; inner -= divisor)
    if (size % inner == 0 && inner >= min_size && size / inner >= min_size) return inner;
  return 0;
}

int64_t choose_split(DimType type, int64_t size, int64_t max_size, int64_t min_size) {
  const std::vector<int64_t> divisors =
      type == DimType::n ? std::vector<int64_t>{4, 2} :
      type == DimType::k ? std::vector<int64_t>{1} : std::vector<int64_t>{16, 12, 8, 4, 2};
  for (int64_t min : {min_size, int64_t{1}})
    for (int64_t d : divisors)
      if (int64_t inner = best_inner(d, size, max_size, min); inner > 0) return inner;
  return best_inner(1, size, max_size, 1);
}

}  // namespace

void split_dimensions(std::vector<Dimension>& dims, int64_t max_size, int64_t min_size) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i].size <= max_size) continue;
    const int64_t inner = choose_split(dims[i].type, dims[i].size, max_size, min_size);
    if (inner <= 1 || inner == dims[i].size) continue;  // prime beyond max: keep it whole
    Dimension outer = dims[i];
    outer.exec = ExecType::seq;
    outer.size = dims[i].size / inner;
    outer.stride_in0 *= inner, outer.stride_in1 *= inner, outer.stride_out *= inner;
    dims[i].size = inner;
    dims.push_back(outer);  // checked again later in this loop
  }
}

namespace {

[[noreturn]] void missing(const std::string& what) {
  throw ConfigError("identify_primitives: " + what);
}

// Index of the dim minimising key among those passing `ok`; -1 if none.
template <class Ok, class Key>
int pick(const std::vector<Dimension>& dims, Ok ok, Key key) {
  int best = -1;
  for (size_t i = 0; i < dims.size(); ++i)
    if (ok(dims[i], int(i)) && (best < 0 || key(dims[i]) < key(dims[size_t(best)]))) best = int(i);
  return best;
}

}  // namespace

PrimType identify_primitives(std::vector<Dimension>& dims, PrimType main) {
  const bool has_k = std::any_of(dims.begin(), dims.end(), [](const Dimension& d) { return d.type == DimType::k; });
  int pm = -1, pn = -1, pk = -1, pbr = -1;
  auto none = [](const Dimension&) { return 0; };
  if (is_contraction(main) || has_k) {
    auto is = [](DimType t) { return [t](const Dimension& d, int) { return d.type == t; }; };
    pm = pick(dims, [](const Dimension& d, int) { return d.type == DimType::m && d.stride_in0 == 1 && d.stride_out == 1; }, none);
    if (pm < 0) pm = pick(dims, [](const Dimension& d, int) { return d.type == DimType::m && d.stride_out == 1; }, none);
    if (pm < 0) pm = pick(dims, [](const Dimension& d, int) { return d.type == DimType::m && d.stride_in0 == 1; }, none);
    if (pm < 0) missing("no m dimension has stride 1 in in0 or out");
    pk = pick(dims, [](const Dimension& d, int) { return d.type == DimType::k && d.stride_in1 == 1; }, none);
    if (pk < 0) pk = pick(dims, [](const Dimension& d, int) { return d.type == DimType::k && d.stride_in0 == 1; }, none);
    if (pk < 0) missing("no k dimension has stride 1 in in1 or in0");
    pn = pick(dims, is(DimType::n), [](const Dimension& d) { return d.stride_in1; });
    if (pn < 0) missing("no n dimension");
    pbr = pick(dims, [&](const Dimension& d, int i) {
      return d.type == DimType::k && i != pk && d.stride_in1 != 1 && d.stride_out == 0 &&
             d.exec != ExecType::shared; }, [](const Dimension& d) { return d.stride_in0; });
    main = pbr >= 0 ? PrimType::brgemm : PrimType::gemm;
  } else if (is_unary(main)) {
    pm = pick(dims, [](const Dimension& d, int) { return d.stride_in0 == 1; }, none);
    if (pm < 0) missing("no dimension has stride 1 in in0");
    pn = pick(dims, [&](const Dimension& d, int i) { return i != pm && d.stride_out == 1; }, none);
    if (pn < 0 && dims[size_t(pm)].stride_out == 1)
      pn = pick(dims, [&](const Dimension&, int i) { return i != pm; }, [](const Dimension& d) { return d.stride_in0; });
    if (pn < 0 && dims[size_t(pm)].stride_out != 1) missing("no dimension has stride 1 in out");
  } else {
    pm = pick(dims, [](const Dimension& d, int) { return d.stride_out == 1; }, none);
    if (pm < 0) missing("no dimension has stride 1 in out");
    pn = pick(dims, [&](const Dimension&, int i) { return i != pm; }, [](const Dimension& d) { return d.stride_out; });
  }
  std::vector<Dimension> loops, prims;
  for (int id : {pbr, pm, pn, pk})
    if (id >= 0) prims.push_back(dims[size_t(id)]);
  for (size_t i = 0; i < dims.size(); ++i) {
    if (int(i) == pbr || int(i) == pm || int(i) == pn || int(i) == pk) continue;
    Dimension d = dims[i];
    if (d.exec != ExecType::shared) d.exec = ExecType::seq;
    loops.push_back(d);
  }
  for (Dimension& d : prims) d.exec = ExecType::prim;
  dims = loops;
  dims.insert(dims.end(), prims.begin(), prims.end());
  return main;
}

void select_shared_loops(std::vector<Dimension>& dims, int64_t thread_target) {
  auto shared_first = [&] {
    std::stable_partition(dims.begin(), dims.end(),
                          [](const Dimension& d) { return d.exec == ExecType::shared; });
  };
  int64_t threads = 1;
  for (const Dimension& d : dims)
    if (d.exec == ExecType::shared) threads *= d.size;
  if (threads >= thread_target) return shared_first();
  auto candidate = [](const Dimension& d) {
    return (d.exec == ExecType::seq || d.exec == ExecType::undefined) && d.type != DimType::k &&
           d.stride_out != 0 && d.size > 1;
  };
  bool any = threads > 1;
  for (Dimension& d : dims)
    if (candidate(d) && threads * d.size <= thread_target) {
      d.exec = ExecType::shared;
      threads *= d.size;
      any = true;
    }
  // Unlike the seed, a loop larger than the target is still shared when nothing else
  // is: more iterations than threads beats running on one core.
  if (!any)
    for (Dimension& d : dims)
      if (candidate(d)) {
        d.exec = ExecType::shared;
        break;
      }
  shared_first();
}

TensorOperationConfig optimize(const TensorOperationConfig& config,
                               const OptimizerOptions& options) {
  std::vector<Dimension> dims = dimensions_of(config);
  for (Dimension& d : dims)
    if (d.exec != ExecType::shared) d.exec = ExecType::undefined;
  int64_t target = options.thread_target;
  if (target <= 0) {
#if defined(_OPENMP)
    target = int64_t{omp_get_max_threads()} * 16;
#else
    target = 16;
#endif
  }
  fuse_dimensions(dims, options.min_kernel_size);
  split_dimensions(dims, options.max_kernel_size, options.min_kernel_size);
  TensorOperationConfig result = config;
  result.main = identify_primitives(dims, config.main);
  select_shared_loops(dims, target);
  set_dimensions(result, dims);
  return result;
}

}  // namespace polyfuse::cpu
