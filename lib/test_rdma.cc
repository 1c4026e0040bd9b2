/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// CppUnit runner shared by every qa_* executable: runs the suites registered with
// CPPUNIT_TEST_SUITE_REGISTRATION in the objects linked in, or only the test paths
// given on the command line (e.g. "qa_roce_packet::test_golden_vector").

#include <cppunit/CompilerOutputter.h>
#include <cppunit/TestResult.h>
#include <cppunit/TestResultCollector.h>
#include <cppunit/TestRunner.h>
#include <cppunit/TextTestProgressListener.h>
#include <cppunit/extensions/TestFactoryRegistry.h>
#include <iostream>

int main(int argc, char** argv)
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
