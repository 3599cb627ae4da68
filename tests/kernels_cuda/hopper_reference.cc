// Scalar references of the Hopper test kernels (hopper_reference.h).
#include "hopper_reference.h"

#include <cmath>

#include "test_util.h"

namespace pfh_test {

void Mismatches::add(const std::string& what) {
  if (count++ < 4) first.push_back(what);
}

std::string Mismatches::text() const {
  if (count == 0) return {};
  std::string s = std::to_string(count) + " wrong element(s), e.g.";
  for (const std::string& f : first) s += " " + f + ";";
  return s;
}

bool close_to_reference(float got, double reference, double magnitude) {
  return std::abs(got - reference) <= 1e-5 * magnitude + 1e-6;
}

namespace {
std::string element(const char* matrix, int row, int col, float got, double ref) {
  return std::string(matrix) + "(" + std::to_string(row) + ", " + std::to_string(col) + ") = " + std::to_string(got) +
         ", reference " + std::to_string(ref);
}

// rows x cols random values in rows of `ld` elements, NaN in the padding.
std::vector<unsigned short> padded(int rows, int cols, int ld, bool bf16, unsigned seed) {
  const auto values = pft_test::random_bits(static_cast<std::size_t>(rows) * cols, bf16, seed);
  std::vector<unsigned short> v(static_cast<std::size_t>(rows) * ld, bf16 ? 0x7fc0 : 0x7e00);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) v[static_cast<std::size_t>(r) * ld + c] = values[static_cast<std::size_t>(r) * cols + c];
  return v;
}

int round8(int x) { return (x + 7) / 8 * 8; }
}  // namespace

Mismatches check_wgmma_probe(const WgmmaProbe& p, const std::vector<unsigned short>& a,
                             const std::vector<unsigned short>& b, const std::vector<float>& d, int k_steps) {
  Mismatches bad;
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < p.n; ++n) {
      double ref = 0, mag = 0;
      for (int k = 0; k < 16 * k_steps; ++k) {
        const double t = double(pft_test::to_f(a[m * kProbeK + k], p.bf16)) * pft_test::to_f(b[n * kProbeK + k], p.bf16);
        ref += t;
        mag += std::abs(t);
      }
      const float got = d[static_cast<std::size_t>(m) * p.n + n];
      if (!close_to_reference(got, ref, mag)) bad.add(element("D", m, n, got, ref));
    }
  return bad;
}

GemmProblem make_gemm_problem(const GemmConfig& g, int m, int n, int k) {
  GemmProblem p{m, n, k, round8(k), g.b_mn_major ? round8(n) : round8(k), g.bf16, g.b_mn_major, {}, {}};
  p.a = padded(m, k, p.lda, g.bf16, 21);
  p.b = g.b_mn_major ? padded(k, n, p.ldb, g.bf16, 22) : padded(n, k, p.ldb, g.bf16, 22);
  return p;
}

Mismatches check_gemm(const GemmProblem& p, const std::vector<float>& c) {
  Mismatches bad;
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.n; ++j) {
      double ref = 0, mag = 0;
      for (int k = 0; k < p.k; ++k) {
        const unsigned short bk = p.b_mn_major ? p.b[static_cast<std::size_t>(k) * p.ldb + j]
                                               : p.b[static_cast<std::size_t>(j) * p.ldb + k];
        const double t = double(pft_test::to_f(p.a[static_cast<std::size_t>(i) * p.lda + k], p.bf16)) *
                         pft_test::to_f(bk, p.bf16);
        ref += t;
        mag += std::abs(t);
      }
      const float got = c[static_cast<std::size_t>(i) * p.n + j];
      if (!close_to_reference(got, ref, mag)) bad.add(element("C", i, j, got, ref));
    }
  return bad;
}

}  // namespace pfh_test
