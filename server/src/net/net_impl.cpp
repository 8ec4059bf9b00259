// Separate compilation of Asio and Beast (BOOST_ASIO_SEPARATE_COMPILATION and
// BOOST_BEAST_SEPARATE_COMPILATION are set for every target that links flockstep::boost_net):
// their non-template code is compiled once here instead of in every translation unit, which
// matters for build time on two cores.
#include <boost/asio/impl/src.hpp>
#include <boost/beast/src.hpp>
