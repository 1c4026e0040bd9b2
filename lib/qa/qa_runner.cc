/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "qa_runner.h"
#include <cppunit/CompilerOutputter.h>
#include <cppunit/TestResult.h>
#include <cppunit/TestResultCollector.h>
#include <cppunit/TestRunner.h>
#include <cppunit/TextTestProgressListener.h>
#include <cppunit/extensions/TestFactoryRegistry.h>
#include <iostream>
#include <stdexcept>

namespace gr {
namespace rdma {

int run_registered_tests(int argc, char** argv)
{
    CppUnit::TestResult controller;
    CppUnit::TestResultCollector result;
    controller.addListener(&result);
    CppUnit::TextTestProgressListener progress;
    controller.addListener(&progress);

    CppUnit::TestRunner runner;
    runner.addTest(CppUnit::TestFactoryRegistry::getRegistry().makeTest());
    try {
        if (argc > 1) {
            for (int i = 1; i < argc; i++)
                runner.run(controller, argv[i]);
        } else {
            runner.run(controller);
        }
    } catch (const std::invalid_argument& e) {
        std::cerr << "\nno such test: " << e.what() << "\n";
        return 2;
    }
    std::cerr << "\n";
    CppUnit::CompilerOutputter outputter(&result, std::cerr);
    outputter.write();
    return result.wasSuccessful() ? 0 : 1;
}

} // namespace rdma
} // namespace gr
