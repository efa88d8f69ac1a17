// The project's own test main: Kokkos around GoogleTest.
#include "gpp_test_util.hpp"

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

int main(int argc, char* argv[]) {
  Kokkos::initialize(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  for (auto& hook : gpp::test::before_finalize()) hook();
  Kokkos::finalize();
  return rc;
}
